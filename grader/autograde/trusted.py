"""Extract, grade and record submissions: the trusted part of autograding, shared by
``grader autograde`` (the whole class at once) and ``TrustedGrade`` (one notebook,
when nbgrader's autograde runs without a fresh record)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable

import nbformat

from grader.core.course import Assignment, Course
from grader.core.fingerprint import run_fingerprint
from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
from grader.engine.events import Relay, RunListener
from grader.engine.local import LocalPool
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord, ungraded_record
from grader.engine.store import ResultStore
from grader.errors import GraderError
from grader.notebooks.coursedir import BuiltAssignment, built_assignments
from grader.notebooks.extract import Extraction, extract_submission, notebooks_of
from grader.notebooks.segments import ModuleParts
from grader.sandbox.reaper import become_subreaper, kill_strays

EXTRACTED_DIR = "extracted"
RESULTS_DIR = "grader-results"


def results_store(course_dir: Path, assignment: str, out: Path | None = None) -> ResultStore:
    """Where the records of ``assignment`` live: ``<out>/<assignment>/``, by default
    ``<course_dir>/grader-results/<assignment>/`` (relative to the course directory, so a
    course directory moved or mounted elsewhere keeps its records)."""
    return ResultStore(Path(out if out is not None else Path(course_dir) / RESULTS_DIR) / assignment)


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


def extract(
    course: Course,
    course_dir: Path,
    assignment: Assignment,
    info: BuiltAssignment,
    student: str,
    notebooks: list[nbformat.NotebookNode] | None = None,
    modules: dict[str, ModuleParts] | None = None,
) -> Extraction:
    """Modules of one submission; the notebooks are read from submitted/ unless given.

    ``modules`` (:func:`assignment_modules`) is the same for the whole class: compute it once.
    """
    folder = submission_dir(course_dir, student, assignment.id)
    problems: list[str] = []
    if notebooks is None:
        notebooks, problems = notebooks_of(folder, [info.notebook])
    return extract_submission(
        course,
        assignment,
        notebooks,
        problems,
        folder,
        extraction_dir(course_dir, student, assignment.id),
        info.student_modules,
        modules,
    )


def grade_extractions(
    course: Course,
    course_dir: Path,
    assignment: Assignment,
    extractions: dict[str, Extraction],
    options: GradingOptions = GradingOptions(),
    *,
    on_advance: Callable[[int], None] | None = None,
    listener: RunListener | None = None,
) -> dict[str, GradeRecord]:
    """One record per extraction, graded by the engine (:func:`grader.engine.dispatch.grade_class`).

    Submissions are handed out one at a time to ``options.jobs`` trusted processes, or to the
    workers of the Dask cluster at ``options.scheduler`` (a session that dies has its submission
    retried once elsewhere), and each record is written atomically the moment it is graded, in
    ``<options.out>/<assignment>/`` (:func:`results_store`); a submission whose stored record is
    current is not graded again. Nothing a submission started outlives grading. ``on_advance(n)``
    counts submissions done; ``listener`` follows the run (its events). ``options.pool``: grading
    processes kept for several assignments (:func:`grading_pool`), else new ones.

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
    store = results_store(course_dir, assignment.id, options.out)
    readable = {s: x.directory for s, x in extractions.items() if x.readable}
    follow = Relay(_Advance(advance), listener or RunListener())
    course_hash = run_fingerprint(course, only)
    records = {}
    for student, extraction in extractions.items():
        if not extraction.readable:  # nothing to run: every exercise scores zero, the notes say why
            record = ungraded_record(
                course,
                student,
                f"{student}/{assignment.id}",
                only,
                "the notebook could not be read",
                course_hash=course_hash,
            )
            records[student] = record.with_extraction(assignment.id, extraction, labs)
            store.save(records[student])
            advance(1)
    failed: dict[str, str] = {}
    if readable:
        become_subreaper()
        try:
            roster = ClassRoster(readable, root=course_dir / EXTRACTED_DIR, others=tuple(records), partial=True)
            run = grade_class(course, roster, replace(options, only=tuple(only), out=store.root), listener=follow)
        finally:
            # Nothing a submission started may outlive grading (and touch the gradebook later);
            # the kept grading processes are the grader's own.
            kill_strays(keep=options.pool.pids() if options.pool is not None else set())
        if run.interrupted:
            raise KeyboardInterrupt
        failed = dict(run.failed)
    for student in readable:
        record = store.load(student)
        if record is None or not record.is_current(fingerprint_of(student, extractions[student]), course_hash):
            failed.setdefault(student, "no current grade was written")
            continue
        records[student] = record.with_extraction(assignment.id, extractions[student], labs)
        if _extraction_of(records[student]) != _extraction_of(record):  # else saved so already (grade_ahead)
            store.save(records[student])
    if failed:
        raise GraderError(
            f"{len(failed)} submission(s) of {assignment.id} could not be graded (the other "
            f"{len(records)} grades are saved in {store.root}; run again to grade only these):\n"
            + "\n".join(f"  {student}: {reason}" for student, reason in sorted(failed.items()))
        )
    return records


@contextmanager
def grading_pool(course: Course, assignments: list[Assignment], options: GradingOptions, logs: Path) -> Iterator:
    """Grading processes kept for ``assignments`` graded one after the other: each starts its sandbox
    and its pytest session once, not once per assignment. None with a Dask scheduler (its workers
    keep their sessions anyway)."""
    if options.scheduler:
        yield None
        return

    only = [e.function for a in assignments for e in a.exercises]
    with LocalPool(
        course,
        jobs=options.jobs,
        options=options,
        course_hash=run_fingerprint(course, only),
        only=only,
        log_dir=logs,
    ) as pool:
        pool.prestart()
        yield pool


def grade_ahead(
    course: Course,
    course_dir: Path,
    work: list[tuple[Assignment, dict[str, Extraction]]],
    options: GradingOptions,
    *,
    on_advance: Callable[[int], None] | None = None,
) -> int:
    """Grade several assignments' extractions in one run of the kept grading processes (``options.pool``);
    each record goes where its assignment's :func:`grade_extractions` finds it current and keeps it.
    The number of submissions graded.

    Graded one assignment after the other, a submission that takes long (an endless loop, up to its
    time limit) leaves the other processes idle until its assignment is done; in one run they go on
    with the next assignment's. Nothing is decided here: a submission this run could not grade is
    graded by its assignment's own run, which reports it.
    """
    course_dir = Path(course_dir).resolve()
    paths: dict[str, Path] = {}
    only: dict[str, tuple[str, ...]] = {}
    destination: dict[str, tuple] = {}
    for assignment, extractions in work:
        functions = tuple(f for f in course.functions if f in {e.function for e in assignment.exercises})
        store = results_store(course_dir, assignment.id, options.out)
        course_hash = run_fingerprint(course, list(functions))
        for student, extraction in extractions.items():
            if not extraction.readable:
                continue
            record = store.load(student)
            if record is not None and record.is_current(fingerprint_of(student, extraction), course_hash):
                continue
            key = f"s{len(paths)}"  # a student has a submission per assignment: one key each
            labs = [e.function for e in assignment.exercises if e.kind == "lab"]
            paths[key], only[key] = extraction.directory, functions
            destination[key] = (store, student, assignment.id, extraction, labs)
    if not paths:
        return 0
    # Beside the results (the same file system), and gone after: nothing else is ever in grader-results/.
    scratch = Path(options.out) if options.out is not None else course_dir / RESULTS_DIR
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".ahead-", dir=scratch) as out:
        become_subreaper()
        try:
            roster = ClassRoster(paths, root=course_dir / EXTRACTED_DIR, only=only)
            listener = _Advance(on_advance or (lambda n: None))
            grade_class(course, roster, replace(options, only=None, out=Path(out), force=True), listener=listener)
        finally:
            kill_strays(keep=options.pool.pids() if options.pool is not None else set())
        graded = ResultStore(Path(out))
        count = 0
        for key, (store, student, assignment_id, extraction, labs) in destination.items():
            record = graded.load(key)
            if record is not None:  # as its assignment's grading would keep it: its own grading then saves nothing
                store.save(replace(record, student=student).with_extraction(assignment_id, extraction, labs))
                count += 1
    return count


def _extraction_of(record: GradeRecord) -> tuple:
    """What :meth:`GradeRecord.with_extraction` sets."""
    return record.assignment, record.labs, record.notes, record.spans


def fingerprint_of(student: str, extraction: Extraction) -> str:
    """The fingerprint of an extraction's modules, as a record of them holds it."""
    return Parcel.read(student, extraction.directory).fingerprint


class _Advance(RunListener):
    """Counts the submissions a run is done with: current ones at once, then each graded or failed."""

    def __init__(self, advance: Callable[[int], None]):
        self.advance = advance

    def plan(self, total: int, todo: int, current: int) -> None:
        self.advance(current)

    def graded(self, student: str, record: GradeRecord, session: str) -> None:
        self.advance(1)

    def failed(self, student: str, reason: str, infrastructure: bool = False) -> None:
        self.advance(1)
