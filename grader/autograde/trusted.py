"""Extract, grade and record submissions: the trusted part of autograding, shared by
``grader autograde`` (the whole class at once) and ``TrustedGrade`` (one notebook,
when nbgrader's autograde runs without a fresh record)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

import nbformat

from grader.autograde.extract import Extraction, extract_submission, notebooks_of
from grader.autograde.grading import grade_all
from grader.autograde.reaper import become_subreaper, kill_strays
from grader.autograde.records import make_record, record_key, save_record
from grader.build.coursedir import BuiltAssignment, built_assignments
from grader.build.segments import ModuleParts
from grader.classgrade.fingerprint import course_fingerprint
from grader.course import Assignment, Course
from grader.errors import GraderError
from grader.grade.results import SubmissionResult, score_function

EXTRACTED_DIR = "extracted"


def built_info(course_dir: Path, assignment: Assignment) -> BuiltAssignment:
    """What ``grader build`` recorded about ``assignment`` in ``course_dir``."""
    built = built_assignments(course_dir).get(assignment.id)
    if built is None:
        raise GraderError(f"{assignment.id} has not been built in {course_dir}: run `grader build` first")
    return built


def extraction_dir(course_dir: Path, student: str, assignment: str) -> Path:
    return Path(course_dir) / EXTRACTED_DIR / student / assignment


def submission_dir(course_dir: Path, student: str, assignment: str) -> Path:
    return Path(course_dir) / "submitted" / student / assignment


def extract(course: Course, course_dir: Path, assignment: Assignment, info: BuiltAssignment, student: str,
            notebooks: list[nbformat.NotebookNode] | None = None,
            modules: dict[str, ModuleParts] | None = None) -> Extraction:
    """Modules of one submission; the notebooks are read from submitted/ unless given.

    ``modules`` (:func:`assignment_modules`) is the same for the whole class: compute it once.
    """
    folder = submission_dir(course_dir, student, assignment.id)
    problems: list[str] = []
    if notebooks is None:
        notebooks, problems = notebooks_of(folder, [info.notebook])
    return extract_submission(course, assignment, notebooks, problems, folder,
                              extraction_dir(course_dir, student, assignment.id), info.student_modules, modules)


def grade_extractions(course: Course, course_dir: Path, assignment: Assignment, extractions: dict[str, Extraction],
                      *, jobs: int = 1, sandbox: str = "auto",
                      on_done: Callable[[str], None] | None = None) -> dict[str, dict]:
    """Grade every extraction, kill what student code left running, save one record each."""
    course_hash = course_fingerprint(course)
    only = [e.function for e in assignment.exercises]
    readable = {s: x.directory for s, x in extractions.items() if x.readable}
    become_subreaper()
    try:
        with tempfile.TemporaryDirectory(prefix="grader-autograde-") as scratch:
            results = grade_all(course, readable, only, jobs=jobs, scratch=Path(scratch), sandbox=sandbox,
                                on_done=on_done)
    finally:
        # Nothing a submission started may outlive grading (and touch the gradebook later).
        kill_strays()
    labs = [e.function for e in assignment.exercises if e.kind == "lab"]
    records = {}
    for student, extraction in extractions.items():
        if student in results:
            result_json = results[student]
        else:  # nothing to run: every exercise scores zero, the notes say why
            result_json = unreadable_result(course, assignment, extraction).to_json()
            if on_done:
                on_done(student)
        record = make_record(student, assignment.id, extraction, result_json, record_key(extraction, course_hash),
                             labs)
        save_record(course_dir, record)
        records[student] = record
    return records


def unreadable_result(course: Course, assignment: Assignment, extraction: Extraction) -> SubmissionResult:
    functions = {e.function: score_function(course, e.function, [], "the notebook could not be read")
                 for e in assignment.exercises}
    return SubmissionResult(submission=str(extraction.directory), functions=functions)
