"""Extract, grade and record submissions: the trusted part of autograding, shared by
``grader autograde`` (the whole class at once) and ``TrustedGrade`` (one notebook,
when nbgrader's autograde runs without a fresh record)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import nbformat

from grader.autograde.extract import Extraction, extract_submission, notebooks_of
from grader.autograde.reaper import become_subreaper, kill_strays
from grader.autograde.records import is_current, make_record, results_store, with_extraction
from grader.build.coursedir import BuiltAssignment, built_assignments
from grader.build.segments import ModuleParts
from grader.classgrade.run import grade_class, run_fingerprint
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
                      on_advance: Callable[[int], None] | None = None) -> dict[str, dict]:
    """One record per extraction, graded by the class engine (:func:`grader.classgrade.run.grade_class`).

    Submissions are handed out one at a time to ``jobs`` trusted processes (a process
    that dies is replaced and its submission retried) and each record is written
    atomically the moment it is graded; a submission whose stored record is current is
    not graded again. Nothing a submission started outlives grading. ``on_advance(n)``
    counts submissions done.

    Raises
    ------
    GraderError
        Naming the submissions that could not be graded; every other record is kept,
        so running again grades only those.
    """
    course_dir = Path(course_dir).resolve()
    advance = on_advance or (lambda n: None)
    only = [e.function for e in assignment.exercises]
    labs = [e.function for e in assignment.exercises if e.kind == "lab"]
    store = results_store(course_dir, assignment.id)
    readable = {s: x.directory for s, x in extractions.items() if x.readable}

    def follow(kind: str, data: dict) -> None:
        if kind == "plan":
            advance(data["current"])
        elif kind in ("graded", "failed"):
            advance(1)

    failed: dict[str, str] = {}
    if readable:
        become_subreaper()
        try:
            run = grade_class(course, course_dir / EXTRACTED_DIR, store.root, jobs=jobs, mode=sandbox, only=only,
                              on_event=follow, students=readable)
        finally:
            # Nothing a submission started may outlive grading (and touch the gradebook later).
            kill_strays()
        if run.interrupted:
            raise KeyboardInterrupt
        failed = dict(run.failed)
    course_hash = run_fingerprint(course, only)
    records = {}
    for student, extraction in extractions.items():
        if extraction.readable:
            record = store.load(student)
            if not is_current(record, extraction, course_hash):
                failed.setdefault(student, "no current grade was written")
                continue
        else:  # nothing to run: every exercise scores zero, the notes say why
            record = make_record(student, assignment.id, extraction,
                                 unreadable_result(course, assignment, extraction).to_json(), course_hash)
            advance(1)
        record = with_extraction(record, assignment.id, extraction, labs)
        store.save(record)
        records[student] = record
    if failed:
        raise GraderError(f"{len(failed)} submission(s) of {assignment.id} could not be graded (the other "
                          f"{len(records)} grades are saved in {store.root}; run again to grade only these):\n"
                          + "\n".join(f"  {student}: {reason}" for student, reason in sorted(failed.items())))
    return records


def unreadable_result(course: Course, assignment: Assignment, extraction: Extraction) -> SubmissionResult:
    functions = {e.function: score_function(course, e.function, [], "the notebook could not be read")
                 for e in assignment.exercises}
    return SubmissionResult(submission=str(extraction.directory), functions=functions)
