"""Grade a class: decide what needs grading, hand it to grading sessions, save each record at once.

The same for every backend: :class:`~grader.engine.local.LocalPool` (trusted processes on
this machine) and :class:`~grader.engine.cluster.DaskCluster` (the workers of a Dask
cluster). A backend asks :class:`Dispatcher` for the next submission whenever one of its
sessions is free and hands back what the session said; the dispatcher writes every record
the moment it arrives (atomically), retries a submission whose session was lost once
elsewhere, and records a second loss as a failure of the infrastructure, never as a grade.
Grades never depend on the backend, the number of sessions or the order: every submission
gets a fresh worker, and the property tests are derandomized.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.calendar import penalty_of, read_timestamp
from grader.core.course import Course
from grader.core.fingerprint import run_fingerprint
from grader.engine.backend import Backend, Outcome
from grader.engine.driver import check_functions
from grader.engine.events import Relay, RunListener
from grader.engine.local import LocalPool
from grader.engine.manifest import ClassManifest
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel, SubmissionRefused, label_of
from grader.engine.record import now, ungraded_record
from grader.engine.store import ResultStore
from grader.errors import GraderError

MAX_ATTEMPTS = 2


@dataclass(frozen=True)
class ClassRoster:
    """The submissions a class run grades, and the rest of the class it reports.

    Attributes
    ----------
    students
        ``{student: path}``: the submissions to grade (those with a current record are not graded again).
    root
        The folder the submissions came from: records name each submission relative to it,
        and the results folder keeps the results of one such folder only (by its name, so a
        class copied or mounted elsewhere keeps its results). Default: the first one's parent.
    skipped
        Entries of the class that discovery left out (entry -> reason): they count as failed.
    others
        Students of the class whose records are made elsewhere (a notebook that could not be read).
    partial
        These are some students of the class (``--student``): the class keeps its others.
    only
        ``{student: functions}``: a submission graded on these functions instead of the run's
        (several assignments' submissions graded in one run, each on its assignment's).
    submitted
        ``{student: time}``: when each was handed in (UTC, ``YYYY-MM-DD HH:MM:SS``), as an LMS download
        says; a student not in it has the time of the ``timestamp.txt`` in its folder, if any.
    people
        ``{student: {"lms", "lms_id", "name", "late"}}``: who each student is, as the LMS writes it.
    """

    students: dict[str, Path]
    root: Path | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    others: Sequence[str] = ()
    partial: bool = False
    only: dict[str, tuple[str, ...]] = field(default_factory=dict)
    submitted: dict[str, str] = field(default_factory=dict)
    people: dict[str, dict] = field(default_factory=dict)


@dataclass
class ClassRun:
    """What a class run did."""

    students: dict[str, Path]
    up_to_date: list[str] = field(default_factory=list)
    graded: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    sandbox: str = ""
    where: str = ""
    wall_time: float = 0.0
    interrupted: bool = False
    todo: list[str] = field(default_factory=list)  # the submissions this run grades


class Dispatcher:
    """The submissions still to grade, who is grading what, and every record saved as it comes (what a
    backend is fed: :class:`~grader.engine.backend.Feed`)."""

    def __init__(
        self,
        course: Course,
        students: dict[str, Path],
        labels: dict[str, str],
        store: ResultStore,
        run: ClassRun,
        listener: RunListener,
        only: list[str] | None = None,
        course_hash: str = "",
    ):
        self.course = course
        self.course_hash = course_hash
        self.paths = students
        self.labels = labels
        self.store = store
        self.run = run
        self.listener = listener
        self.only = only
        self.queue: deque[str] = deque(students)
        self.only_of: dict[str, tuple[str, ...]] = {}  # per-student restrictions (ClassRoster.only)
        self.attempts: dict[str, int] = {}
        self.in_flight: dict[str, str] = {}  # student -> the session grading it

    @property
    def finished(self) -> bool:
        return not self.queue and not self.in_flight

    @property
    def waiting(self) -> int:
        return len(self.queue)

    def next(self, session: str) -> Parcel | None:
        """The next submission for ``session`` (read now, so its fingerprint is what is graded)."""
        while self.queue:
            student = self.queue.popleft()
            only = list(self.only_of[student]) if student in self.only_of else self.only
            try:
                parcel = Parcel.read(student, self.paths[student], self.labels[student], only)
            except SubmissionRefused as exc:  # the student's doing: a grade of zero that says why
                record = ungraded_record(
                    self.course,
                    student,
                    self.labels[student],
                    only or self.course.functions,
                    str(exc),
                    course_hash=self.course_hash,
                )
                self.store.save(record)
                self.run.graded.append(student)
                self.listener.graded(student, record, "-")
                continue
            except GraderError as exc:
                self._fail(student, f"could not stage the submission: {exc}")
                continue
            self.in_flight[student] = session
            self.listener.began(student, session)
            return parcel
        return None

    def outcome(self, student: str, outcome: Outcome) -> None:
        """What the session grading ``student`` said."""
        session = self.in_flight.pop(student, None)
        if outcome.fatal:
            raise GraderError(outcome.failure)
        if outcome.record is not None:
            if outcome.record.student != student:
                self.lost(student, session or "?", "the grading session answered for another student")
                return
            self.store.save(outcome.record)
            self.run.graded.append(student)
            self.listener.graded(student, outcome.record, session or "?")
        elif outcome.infrastructure:
            self.lost(student, session or "?", outcome.failure)
        else:
            self._fail(student, outcome.failure)

    def lost(self, student: str, session: str, reason: str) -> None:
        """``session`` could not finish ``student`` (it died, or its sandbox failed): retry once."""
        self.in_flight.pop(student, None)
        self.attempts[student] = self.attempts.get(student, 0) + 1
        if self.attempts[student] < MAX_ATTEMPTS:
            self.queue.appendleft(student)
            self.listener.retry(student, session, reason)
        else:
            self._fail(
                student,
                f"not graded: the grading infrastructure failed {MAX_ATTEMPTS} times on it "
                f"(last: {reason}); this is not a grade, run again to retry",
                infrastructure=True,
            )

    def session_lost(self, session: str, reason: str) -> None:
        """``session`` died or left: what it was grading is retried (or failed), then the listener hears of it."""
        for student in [s for s, where in self.in_flight.items() if where == session]:
            self.lost(student, session, reason)
        self.listener.lost(session)

    def _fail(self, student: str, reason: str, infrastructure: bool = False) -> None:
        self.run.failed[student] = reason
        self.listener.failed(student, reason, infrastructure)


def plan(
    students: dict[str, Path], labels: dict[str, str], store: ResultStore, course_hash: str, force: bool = False
) -> tuple[list[str], list[str]]:
    """(students to grade, students whose stored record is current).

    A stored record that is not current (other files, another course) is removed here,
    before anything is graded: it is no grade of what the student handed in, and a regrade
    that fails or is interrupted must leave "not graded", never the old score.
    """
    todo, current = [], []
    for student, path in students.items():
        record = store.load(student)
        try:
            fingerprint = Parcel.read(student, path, labels[student]).fingerprint
        except GraderError:  # unreadable now: grading will say so for this student alone
            fingerprint = None
        is_current = record is not None and fingerprint is not None and record.is_current(fingerprint, course_hash)
        if record is not None and not is_current:
            store.discard(student)
        (current if is_current and not force else todo).append(student)
    return todo, current


def make_backend(
    course: Course, options: GradingOptions, *, jobs: int, course_hash: str, only: list[str] | None, store: ResultStore
) -> Backend:
    """New grading sessions for one run: on the cluster of ``options.scheduler``, else ``jobs`` processes here."""
    if options.scheduler:
        from grader.engine.cluster import DaskCluster

        return DaskCluster(options.scheduler, course, options=options, course_hash=course_hash, only=only)
    return LocalPool(course, jobs=jobs, options=options, course_hash=course_hash, only=only, log_dir=store.logs_dir)


def grade_class(
    course: Course, roster: ClassRoster, options: GradingOptions, listener: RunListener | None = None
) -> ClassRun:
    """Grade every submission of ``roster`` that has no current record in ``options.out``.

    ``options.out`` keeps the results of one class folder (:attr:`ClassRoster.root`) only.
    ``options.only`` restricts grading to these functions; ``options.scheduler`` grades on
    that Dask cluster instead of ``options.jobs`` processes here; ``options.pool``: sessions
    kept by the caller, instead of new ones.

    ``listener`` (a :class:`~grader.engine.events.RunListener`) follows the run, from ``plan``
    to each submission's ``graded`` or ``failed``. The roster's ``skipped`` entries are reported as
    failed; its ``others`` and, for a ``partial`` run, the students of earlier runs are listed
    in the class too. The phases: :func:`_setup` (what the run is), :func:`_begin` (its manifest,
    under the results directory's lock), :func:`_dispatch` (the backend grades), :func:`_finish`
    (summary.csv and the manifest, also after Ctrl-C).
    """
    started = time.monotonic()
    listener = listener or RunListener()
    setup = _setup(course, roster, options)
    lock = setup.store.lock()  # before reading what an earlier run left there
    try:
        manifest, run = _begin(course, roster, options, setup, listener)
        try:
            if run.todo:
                _dispatch(course, roster, options, setup, run, listener)
        except KeyboardInterrupt:
            run.interrupted = True
        finally:
            run.wall_time = time.monotonic() - started
            _finish(course, setup, manifest, run)
    finally:
        lock.close()
    return run


@dataclass
class _Setup:
    """What a class run is, before anything is read from its results directory."""

    root: Path
    labels: dict[str, str]
    store: ResultStore
    only: list[str] | None
    course_hash: str


def _setup(course: Course, roster: ClassRoster, options: GradingOptions) -> _Setup:
    if not roster.students:
        raise GraderError("no submissions to grade")
    if options.out is None:
        raise GraderError("grade_class needs the folder of the results (GradingOptions.out)")
    root = Path(roster.root) if roster.root is not None else Path(next(iter(roster.students.values()))).parent
    only = options.only
    if only:
        check_functions(course, only)
        only = [f for f in course.functions if f in only]
    return _Setup(
        root=root,
        labels={s: label_of(p, root) for s, p in roster.students.items()},
        store=ResultStore(Path(options.out)),
        only=only,
        course_hash=run_fingerprint(course, only),
    )


def _begin(
    course: Course, roster: ClassRoster, options: GradingOptions, setup: _Setup, listener: RunListener
) -> tuple[ClassManifest, ClassRun]:
    """The run's plan and its manifest, saved before anything is graded."""
    previous = ClassManifest.from_json(setup.store.manifest())
    if previous and previous.klass not in ("", setup.root.name):
        raise GraderError(
            f"{options.out} holds the results of the class in a folder named {previous.klass!r}, "
            f"not {setup.root.name!r}; write these results somewhere else"
        )
    earlier = previous if roster.partial and previous else None
    todo, current = plan(roster.students, setup.labels, setup.store, setup.course_hash, options.force)
    run = ClassRun(students=dict(roster.students), up_to_date=current, failed=dict(roster.skipped), todo=todo)
    # The whole class, for the manifest and summary.csv: a partial run leaves the others in it.
    everyone = sorted(set(roster.students) | set(roster.others) | set(earlier.students if earlier else []))
    manifest = ClassManifest.begin(
        course,
        course_hash=setup.course_hash,
        klass=setup.root.name,
        students=everyone,
        jobs=options.jobs,
        started_at=now(),
        only=setup.only,
    )
    _times(course, roster, manifest, earlier)
    setup.store.save_manifest(manifest.to_json())
    for entry, reason in run.failed.items():
        listener.failed(entry, reason)
    listener.plan(len(roster.students), len(todo), len(current))
    return manifest, run


def _times(course: Course, roster: ClassRoster, manifest: ClassManifest, earlier: ClassManifest | None) -> None:
    """Each student's submission time and who they are: as the caller gives them (an LMS download's), else
    nbgrader's timestamp.txt in the student's folder, read here in the trusted process; the others of a
    partial run keep theirs."""
    if earlier is not None:
        manifest.submitted = dict(earlier.submitted)
        manifest.submitted_problems = dict(earlier.submitted_problems)
        manifest.people = dict(earlier.people)
    for student, path in roster.students.items():
        manifest.submitted.pop(student, None)
        manifest.submitted_problems.pop(student, None)
        if student in roster.submitted:
            when, problem = roster.submitted[student], None
        else:
            when, problem = read_timestamp(path, course.time_zone)
        if when:
            manifest.submitted[student] = when
        if problem:
            manifest.submitted_problems[student] = problem
        if student in roster.people:
            manifest.people[student] = roster.people[student]


def _dispatch(
    course: Course, roster: ClassRoster, options: GradingOptions, setup: _Setup, run: ClassRun, listener: RunListener
) -> None:
    """The submissions to grade, handed to a backend: the caller's sessions, or new ones."""
    backend = options.pool or make_backend(
        course,
        options,
        jobs=max(1, min(options.jobs, len(run.todo))),
        course_hash=setup.course_hash,
        only=setup.only,
        store=setup.store,
    )
    run.where = backend.where
    dispatcher = Dispatcher(
        course,
        {s: roster.students[s] for s in run.todo},
        setup.labels,
        setup.store,
        run,
        Relay(_FirstSandbox(run), listener),
        setup.only,
        setup.course_hash,
    )
    dispatcher.only_of = dict(roster.only)
    backend.run(dispatcher)


def _finish(course: Course, setup: _Setup, manifest: ClassManifest, run: ClassRun) -> None:
    """summary.csv (with each student's late penalty and final score) and the manifest, as the run ended."""
    records = setup.store.all_records(manifest.students)
    penalties = {
        r.student: penalty_of(manifest.calendar, manifest.submitted.get(r.student), r.assignments, r.student)
        for r in records
    }
    setup.store.write_summary(course, records, run.failed, penalties)
    manifest.finished_at = None if run.interrupted else now()
    manifest.wall_time = round(run.wall_time, 3)
    manifest.graded_this_run = len(run.graded)
    manifest.sandbox, manifest.where = run.sandbox, run.where
    manifest.interrupted, manifest.failed = run.interrupted, run.failed
    setup.store.save_manifest(manifest.to_json())


class _FirstSandbox(RunListener):
    """Remembers the first session's sandbox in the run (the manifest says what graded it)."""

    def __init__(self, run: ClassRun):
        self.run = run

    def started(self, session: str, sandbox: str, sandboxed: bool | None) -> None:
        if not self.run.sandbox:
            self.run.sandbox = sandbox
