"""The one pytest driver: a stream of submissions in, records out, in one pytest session.

The hidden tests are collected once (about a second); then, for each submission
handed out, the session binds the ``impl`` fixture's one placeholder id to the
staged copy and runs every collected item of the submission's functions, the last
one with ``nextitem=None`` so that every fixture, the worker included, is torn down
between two submissions. Each submission therefore sees exactly what it would see
alone.

- :class:`Session` runs the stream in the calling thread (``grader grade``, ``grader
  check``, the course's own mutant tests);
- :class:`HostedSession` keeps a session running in a thread of its own and grades one
  submission per call: the grading processes of :mod:`grader.engine.local` and the
  workers of :mod:`grader.engine.cluster` host one each, for every submission they get.
"""

from __future__ import annotations

import contextlib
import io
import queue
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import Callable

import pytest

from grader.core.course import Course
from grader.core.fingerprint import run_fingerprint
from grader.core.plugin import GradingPlugin, function_of
from grader.core.replay import ReplayPlugin
from grader.core.staging import stage_submission
from grader.engine.backend import Outcome
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord, graded_record
from grader.errors import GraderError
from grader.sandbox import SandboxLauncher, sandbox_launcher
from grader.sandbox.limits import Limits
from grader.worker.client import Launcher, LocalLauncher, WorkerStartError

SUITES = ("hidden", "visible")
PLACEHOLDER = "submission"

Feed = Callable[[], "Parcel | None"]
OnRecord = Callable[[Parcel, GradeRecord], None]
# on_failure(parcel, reason, infrastructure): not graded; infrastructure=True when it is not the student's doing
OnFailure = Callable[[Parcel, str, bool], None]


def tests_dir_of(course: Course, suite: str) -> Path:
    """The folder of a suite's tests; a clear error when it is missing."""
    if suite not in SUITES:
        raise ValueError(f"suite must be one of {SUITES}")
    tests_dir = course.hidden_tests_dir if suite == "hidden" else course.visible_tests_dir
    if not tests_dir.is_dir():
        raise GraderError(f"no {suite} tests at {tests_dir}")
    return tests_dir


def check_functions(course: Course, functions) -> None:
    unknown = [f for f in functions if f not in course.functions]
    if unknown:
        raise GraderError(f"not a function of this course: {', '.join(unknown)}")


def run_pytest(course: Course, suite: str, plugins: list) -> None:
    """One pytest session of ``suite`` with ``plugins`` (the first one a GradingPlugin).

    Raises
    ------
    GraderError
        When the tests cannot be collected or pytest cannot run.
    """
    plugin = plugins[0]
    tests_dir = tests_dir_of(course, suite)
    # A session for some functions collects their test files only (collecting all of them and
    # leaving most out costs a third of a second more per session).
    files = [tests_dir / f"test_{f}.py" for f in plugin.functions] if plugin.only else []
    targets = [str(path) for path in files if path.is_file()] or [str(tests_dir)]
    args = [
        *targets,
        "-c",
        str(course.tests_dir / "pytest.ini"),
        "--rootdir",
        str(course.tests_dir),
        "-p",
        "no:terminal",
        "-p",
        "no:cacheprovider",
        # Messages come from the tests themselves; rewriting asserts would cost ~1 s.
        "--assert=plain",
        # Its end-of-test gc.collect() calls cost ~0.4 s a session and report nothing we use.
        "-p",
        "no:unraisableexception",
        # No fd-level capture: callbacks may report progress on the real stdout
        # (Python-level output of pytest/hypothesis still goes to the sink below).
        "--capture=no",
        # Per-test plugins that grading never uses (log capture, warning capture, ...)
        # cost a fraction of a millisecond per test, hundreds of times per submission.
        *[
            arg
            for plugin in (
                "logging",
                "warnings",
                "doctest",
                "junitxml",
                "pastebin",
                "stepwise",
                "faulthandler",
                "threadexception",
                "legacypath",
                "nose",
            )
            for arg in ("-p", f"no:{plugin}")
        ],
    ]
    # pytest and hypothesis talk on stdout; the grader's own output must stay clean (--json).
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(args, plugins=plugins)
    if plugin.collection_errors:
        raise GraderError(f"the {suite} tests could not be collected:\n" + "\n".join(plugin.collection_errors))
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        raise GraderError(f"the {suite} tests did not run (pytest: {code.name}):\n{sink.getvalue()[-3000:]}")


class StreamPlugin(GradingPlugin):
    """A GradingPlugin whose one submission id is bound to each submission in turn."""

    def __init__(self, course: Course, *, launcher=None, only: list[str] | None = None):
        super().__init__(course, {PLACEHOLDER: Path("/nonexistent")}, launcher=launcher, only=only)

    def bind(self, staged: Path, only: list[str] | None) -> None:
        self.reset(PLACEHOLDER, staged, only)


class Session:
    """Grade a stream of submissions in one pytest session, in the calling thread.

    Parameters
    ----------
    launcher : starts the workers (:class:`~grader.worker.client.Launcher`; default: plain processes,
        for trusted code only).
    course_hash : the run fingerprint records are stored under (:func:`run_fingerprint`).
    grader : who grades, for the records (a host name, a Dask worker's address).
    replay : replay the reference's traces of the hidden tests (:mod:`grader.core.replay`; the
        records are the same either way).
    """

    def __init__(
        self,
        course: Course,
        *,
        launcher: Launcher | None = None,
        course_hash: str = "",
        suite: str = "hidden",
        only: list[str] | None = None,
        grader: str = "",
        replay: bool = True,
    ):
        tests_dir_of(course, suite)
        self.replay = replay and suite == "hidden"  # the visible tests are not traced
        check_functions(course, only or [])
        self.course = course
        self.launcher: Launcher = launcher or LocalLauncher()
        self.course_hash = course_hash
        self.suite = suite
        self.only = [f for f in course.functions if f in only] if only else None
        self.grader = grader or socket.gethostname()
        self.limits = launcher.limits if isinstance(launcher, SandboxLauncher) else Limits.from_course(course)
        self.sandbox = self.launcher.describe()
        self._hashes: dict[tuple[str, ...], str] = {}

    def run(self, feed: Feed, on_record: OnRecord, on_failure: OnFailure) -> None:
        """Grade what ``feed`` hands out until it returns None, or until a failure of the
        infrastructure (``on_failure(..., True)``; the caller decides whether to go on).

        Raises
        ------
        GraderError
            When the tests cannot be collected or pytest cannot run.
        """
        plugin = StreamPlugin(self.course, launcher=self.launcher, only=self.only)
        with tempfile.TemporaryDirectory(prefix="grader-session-") as scratch:
            replay = None
            if self.replay:
                replay = ReplayPlugin(
                    plugin,
                    PLACEHOLDER,
                    reply_limit=self.limits.reply_bytes,
                    scratch=Path(scratch),
                    forget_workers=self.launcher.take_exits,  # the reference's and stubs' workers are no one's
                )
            loop = _Loop(self, plugin, replay, feed, on_record, on_failure, Path(scratch))
            run_pytest(self.course, self.suite, [plugin, loop, *([replay] if replay else [])])

    def record(self, parcel: Parcel, result) -> GradeRecord:
        # One submission at a time: every worker that ended since the last one was this one's.
        return graded_record(
            self.course,
            parcel,
            result,
            course_hash=self.course_hash_of(parcel),
            exits=self.launcher.take_exits(),
            limits=self.limits,
            sandbox=self.sandbox,
            grader=self.grader,
        )

    def course_hash_of(self, parcel: Parcel) -> str:
        """The run fingerprint of the functions ``parcel`` is graded on: a record of some functions is
        current for exactly those (a session of a kept pool grades several assignments' submissions)."""
        if not self.course_hash or not parcel.only or self.only is not None and set(parcel.only) == set(self.only):
            return self.course_hash
        key = tuple(f for f in self.course.functions if f in parcel.only)
        if key not in self._hashes:
            self._hashes[key] = run_fingerprint(self.course, list(key))
        return self._hashes[key]


class _Loop:
    """The run loop: pull a submission, run its items against it, repeat."""

    def __init__(
        self,
        session: Session,
        plugin: StreamPlugin,
        replay: ReplayPlugin | None,
        feed: Feed,
        on_record: OnRecord,
        on_failure: OnFailure,
        scratch: Path,
    ):
        self.session = session
        self.plugin = plugin
        self.replay = replay
        self.feed = feed
        self.on_record = on_record
        self.on_failure = on_failure
        self.scratch = scratch

    def _stage(self, parcel: Parcel) -> Path:
        for name in ("received", "staged"):
            if (self.scratch / name).exists():
                shutil.rmtree(self.scratch / name)
        written = parcel.write(self.scratch / "received")
        return stage_submission(self.plugin.course, written, self.scratch / "staged")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(f"{session.testsfailed} errors during collection")
        items = list(session.items)
        while True:
            parcel = self.feed()
            if parcel is None:
                break
            try:
                check_functions(self.plugin.course, parcel.only or [])
                staged = self._stage(parcel)
            except (GraderError, OSError) as exc:  # this submission only (too big, a bad name)
                self.on_failure(parcel, f"could not stage the submission: {exc}", False)
                continue
            wanted = set(self.plugin.functions_for(parcel.only))
            mine = [item for item in items if function_of(item) in wanted]
            if self._grade(session, parcel, staged, mine):
                return True  # the infrastructure failed: this session stops
        return True

    def _grade(self, session, parcel: Parcel, staged: Path, mine: list) -> bool:
        """Grade the bound submission on the items ``mine``; True when the infrastructure failed."""
        replaying = self.replay is not None and bool(mine) and self.replay.prepare(mine, session)
        self.plugin.bind(staged, parcel.only)
        agreed = self.replay.replay(mine) if replaying else set()
        run = [item for item in mine if item.nodeid not in agreed]
        for i, item in enumerate(run):
            # nextitem=None on the last item tears down every fixture, the
            # session-scoped worker included: nothing carries over.
            session.config.hook.pytest_runtest_protocol(item=item, nextitem=run[i + 1] if i + 1 < len(run) else None)
            if session.shouldstop:
                raise session.Interrupted(str(session.shouldstop))
        if agreed and not run:  # no test ran: no teardown closes the submission
            self.plugin.close_submission(PLACEHOLDER)
        if self.replay is not None:
            self.replay.end_submission()
        state = self.plugin.states[PLACEHOLDER]
        if state.infrastructure_error is not None:
            # The grader's trouble, not the student's: no grade, and this session stops.
            self.on_failure(parcel, state.infrastructure_error, True)
            return True
        result = state.result
        if result is None:  # no test item for these functions (e.g. no hidden tests yet)
            result = self.plugin.result_without_tests(PLACEHOLDER)
        self.on_record(parcel, self.session.record(parcel, result))
        return False


def grade_here(
    course: Course,
    parcels: list[Parcel],
    *,
    launcher=None,
    course_hash: str = "",
    suite: str = "hidden",
    only: list[str] | None = None,
    on_record: OnRecord | None = None,
    replay: bool = True,
) -> dict[str, GradeRecord]:
    """Grade ``parcels`` in this process, one session; a record per student (``replay``: see :class:`Session`).

    Raises
    ------
    WorkerStartError
        When a worker could not be started: the grader's trouble, never a grade.
    GraderError
        When the tests cannot be collected, or a submission cannot be staged.
    """
    records: dict[str, GradeRecord] = {}
    pending = list(parcels)
    problems: list[str] = []
    trouble: list[str] = []

    def keep(parcel: Parcel, record: GradeRecord) -> None:
        records[parcel.student] = record
        if on_record is not None:
            on_record(parcel, record)

    def failed(parcel: Parcel, reason: str, infrastructure: bool) -> None:
        if infrastructure:
            trouble.append(reason)
        else:
            problems.append(f"{parcel.label}: {reason}")

    Session(course, launcher=launcher, course_hash=course_hash, suite=suite, only=only, replay=replay).run(
        lambda: pending.pop(0) if pending and not trouble else None, keep, failed
    )
    if trouble:
        raise WorkerStartError("; ".join(trouble))
    if problems:
        raise GraderError("\n".join(problems))
    return records


# -- a session hosted by a long-lived process -------------------------------------------------
_STOP = object()


class HostedSession:
    """A grading session in a thread of its own, with its own sandbox: one submission per :meth:`grade`.

    Started on first use and after a failure of the infrastructure (a fresh sandbox
    and pytest session); :meth:`close` ends it. ``options``: its sandbox, cgroups, bubblewrap and
    replay settings (:class:`~grader.engine.options.GradingOptions`).
    """

    def __init__(
        self,
        course: Course,
        *,
        options: GradingOptions = GradingOptions(),
        course_hash: str = "",
        only: list[str] | None = None,
        grader: str = "",
        warn: Callable[[str], None] | None = None,
    ):
        self.course = course
        self.options = options
        self.course_hash = course_hash
        self.only = only
        self.grader = grader
        self.warn = warn
        self.sandbox = ""
        self.sandboxed = False
        self._inbox: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the sandbox and the pytest session now (else the first :meth:`grade` does).

        Raises
        ------
        GraderError
            When the sandbox cannot start (or is required and missing).
        """
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            options = self.options
            launcher = sandbox_launcher(
                self.course,
                mode=options.sandbox,
                warn=self.warn,
                cgroups=options.cgroups,
                bubblewrap=options.bubblewrap,
            )
            try:
                launcher.start()
            except GraderError:
                launcher.close()
                raise
            self.sandbox, self.sandboxed = launcher.describe(), launcher.sandboxed
            self._inbox = queue.Queue()
            self._thread = threading.Thread(
                target=self._serve, args=(launcher, self._inbox), daemon=True, name="grader-session"
            )
            self._thread.start()

    def _serve(self, launcher, inbox: queue.Queue) -> None:
        current: list[queue.Queue] = []  # the reply queue of the submission being graded

        def feed():
            job = inbox.get()
            if job is _STOP:
                return None
            parcel, reply = job
            current.append(reply)
            return parcel

        def on_record(parcel, record):
            current.pop().put(Outcome(record))

        def on_failure(parcel, reason, infrastructure):
            current.pop().put(Outcome(failure=reason, infrastructure=infrastructure))

        session = Session(
            self.course,
            launcher=launcher,
            course_hash=self.course_hash,
            only=self.only,
            grader=self.grader,
            replay=self.options.replay,
        )
        fatal = error = None
        try:
            session.run(feed, on_record, on_failure)
        except GraderError as exc:  # no session can grade (the tests do not collect): say so to all
            fatal = str(exc)
        except Exception as exc:  # this session cannot go on: whoever waits must hear why
            error = f"the grading session stopped: {type(exc).__name__}: {exc}"
        finally:
            launcher.close()
            ended = Outcome(
                failure=fatal or error or "the grading session stopped", infrastructure=True, fatal=bool(fatal)
            )
            if current:
                current.pop().put(ended)
            # Nobody else may wait on this inbox: the next grade() starts a new session.
            while True:
                try:
                    job = inbox.get_nowait()
                except queue.Empty:
                    break
                if job is not _STOP:
                    job[1].put(ended)

    def grade(self, parcel: Parcel) -> Outcome:
        """Grade one submission (blocks until it is graded)."""
        try:
            self.start()
        except GraderError as exc:
            return Outcome(failure=str(exc), infrastructure=True, fatal=True)
        reply: queue.Queue = queue.Queue()
        self._inbox.put((parcel, reply))
        outcome = reply.get()
        if outcome.infrastructure:
            self.stop()  # a fresh sandbox and session for the next one
        return outcome

    def stop(self) -> None:
        with self._lock:
            thread, inbox = self._thread, self._inbox
            self._thread = None
        if thread is not None and thread.is_alive():
            inbox.put(_STOP)
            thread.join(timeout=60)

    close = stop
