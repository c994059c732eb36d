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
import os
import queue
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from grader.core.course import Course
from grader.core.fingerprint import course_fingerprint, run_fingerprint
from grader.core.plugin import GradingPlugin, function_of
from grader.core.replay import ItemTrace, Replayer, load_traces, store_traces, trace_file, trace_of
from grader.core.staging import stage_submission
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord, graded_record
from grader.errors import GraderError
from grader.sandbox import sandbox_launcher
from grader.sandbox.limits import Limits
from grader.worker.client import WorkerStartError

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
    course_hash : the run fingerprint records are stored under (:func:`run_fingerprint`).
    grader : who grades, for the records (a host name, a Dask worker's address).
    """

    def __init__(
        self,
        course: Course,
        *,
        launcher=None,
        course_hash: str = "",
        suite: str = "hidden",
        only: list[str] | None = None,
        grader: str = "",
        replay: bool | None = None,
    ):
        tests_dir_of(course, suite)
        # Replaying the reference's traces (grader.core.replay): hidden tests only; GRADER_REPLAY=0 turns it off.
        if replay is None:
            replay = os.environ.get("GRADER_REPLAY", "1") != "0"
        self.replay = replay and suite == "hidden"
        check_functions(course, only or [])
        self.course = course
        self.launcher = launcher
        self.course_hash = course_hash
        self.suite = suite
        self.only = [f for f in course.functions if f in only] if only else None
        self.grader = grader or socket.gethostname()
        self.limits = getattr(launcher, "limits", None) or Limits.from_course(course)
        self.sandbox = launcher.describe() if hasattr(launcher, "describe") else "no sandbox (trusted code only)"
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
            loop = _Loop(self, plugin, feed, on_record, on_failure, Path(scratch))
            run_pytest(self.course, self.suite, [plugin, loop])

    def record(self, parcel: Parcel, result) -> GradeRecord:
        history = getattr(self.launcher, "history", None)
        # One submission at a time: every worker that ended since the last one was this one's.
        exits = [e for key in list(history) for e in self.launcher.take_history(key)] if history else []
        return graded_record(
            self.course,
            parcel,
            result,
            course_hash=self.course_hash_of(parcel),
            exits=exits,
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
        feed: Feed,
        on_record: OnRecord,
        on_failure: OnFailure,
        scratch: Path,
    ):
        self.session = session
        self.plugin = plugin
        self.feed = feed
        self.on_record = on_record
        self.on_failure = on_failure
        self.scratch = scratch
        self.traces = _Traces(self) if session.replay else None

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
        hook = session.config.hook
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
            replayer = self.traces.replayer(mine, session) if self.traces is not None and mine else None
            self.plugin.bind(staged, parcel.only)
            agreed = self._replay(replayer, mine) if replayer is not None else {}
            run = [item for item in mine if item.nodeid not in agreed]
            for i, item in enumerate(run):
                # nextitem=None on the last item tears down every fixture, the
                # session-scoped worker included: nothing carries over.
                hook.pytest_runtest_protocol(item=item, nextitem=run[i + 1] if i + 1 < len(run) else None)
                if session.shouldstop:
                    raise session.Interrupted(str(session.shouldstop))
            self.plugin.prefetched = {}
            if agreed and not run:  # no test ran: no teardown closes the submission
                self.plugin.close_submission(PLACEHOLDER)
            if self.traces is not None:
                self.traces.submissions += 1
            state = self.plugin.states[PLACEHOLDER]
            if state.infrastructure_error is not None:
                # The grader's trouble, not the student's: no grade, and this session stops.
                self.on_failure(parcel, state.infrastructure_error, True)
                return True
            result = state.result
            if result is None:  # no test item for these functions (e.g. no hidden tests yet)
                result = self.plugin.result_without_tests(PLACEHOLDER)
            self.on_record(parcel, self.session.record(parcel, result))
        return True

    def _replay(self, replayer: Replayer, mine: list) -> dict:
        """Replay ``mine`` on the bound submission (grader.core.replay): record the tests that agree, and
        leave the others their batch's replies to read; the node ids of those that agreed."""
        replayed = replayer.run(self.plugin.open_submission(PLACEHOLDER), {i.nodeid: function_of(i) for i in mine})
        self.plugin.prefetched = replayed.prefetched
        if replayed.fresh:
            self.plugin.states[PLACEHOLDER].submission.lose_worker()
        # Whole exercises agree or none of their tests does: recorded first, each function's in order.
        for item in mine:
            if item.nodeid in replayed.agreed:
                trace, outcome = replayed.agreed[item.nodeid]
                self.plugin.record(
                    PLACEHOLDER, trace.function, outcome, trace.calls, trace.relation, trace.claims, trace.sizes
                )
        return replayed.agreed


class _Traces:
    """The replay traces of a session's hidden tests (grader.core.replay), by function: read from the
    grader's cache, else recorded by running the reference solutions, and the course's stubs, through
    the same tests.

    A session records only from its second submission on: grading one submission, recording
    would cost as much as it saves.
    """

    RUNS = ("reference", "stubs")

    def __init__(self, loop: "_Loop"):
        self.loop = loop
        self.by_function: dict[str, dict[str, list[ItemTrace]]] = {}  # function -> run -> traces
        self.submissions = 0  # graded so far in this session
        self.fingerprint: str | None = None
        self._replayer: Replayer | None = None

    def replayer(self, mine: list, session) -> Replayer | None:
        """A replayer holding the traces of the tests in ``mine``; None when there are none."""
        course = self.loop.plugin.course
        functions = [f for f in dict.fromkeys(function_of(i) for i in mine) if course.exercise(f).kind != "lab"]
        missing = [f for f in functions if f not in self.by_function]
        if missing and self.fingerprint is None:
            self.fingerprint = course_fingerprint(course)
        for function in missing:
            runs = {run: self._load(function, run) for run in self.RUNS}
            if all(found is not None for found in runs.values()):
                self.by_function[function] = runs
                self._replayer = None
        missing = [f for f in missing if f not in self.by_function]
        if missing and self.submissions >= 1:
            self._record(missing, session)
        if not any(self.by_function.get(f, {}).get("reference") for f in functions):
            return None
        if self._replayer is None:
            every = [t for runs in self.by_function.values() for t in runs["reference"]]
            others: dict[str, list[ItemTrace]] = {}
            for runs in self.by_function.values():
                for trace in runs["stubs"]:
                    others.setdefault(trace.key, []).append(trace)
            self._replayer = Replayer({t.key: t for t in every}, self.loop.session.limits.reply_bytes, others)
        return self._replayer

    def _load(self, function: str, run: str) -> list[ItemTrace] | None:
        path = trace_file(function, self.fingerprint, run)
        return load_traces(path) if path is not None else None

    def _record(self, functions: list[str], session) -> None:
        """Run the reference solutions and the stubs through the tests of ``functions``, keeping each
        test's crossings; store the traces."""
        course = self.loop.plugin.course
        runs = {"reference": self._run(course.solutions_dir, functions, session)}
        stubs = course.exercises_dir
        runs["stubs"] = self._run(stubs, functions, session) if stubs.is_dir() else {}
        if runs["reference"] is None or runs["stubs"] is None:
            return  # the grader's trouble: tried again with the next submission
        for function in functions:
            self.by_function[function] = {run: found.get(function, []) for run, found in runs.items()}
            if function not in runs["reference"]:
                continue  # kept in this session only (empty): the next session records it again
            for run, found in runs.items():
                path = trace_file(function, self.fingerprint, run)
                if path is not None:
                    store_traces(found.get(function, []), path)
        self._replayer = None

    def _run(self, source: Path, functions: list[str], session) -> dict[str, list[ItemTrace]] | None:
        """The traces of one run of ``source`` through the tests of ``functions``, by function."""
        loop, plugin = self.loop, self.loop.plugin
        staged_at = loop.scratch / "traced"
        if staged_at.exists():
            shutil.rmtree(staged_at)
        staged = stage_submission(plugin.course, source, staged_at)
        items = [item for item in session.items if function_of(item) in functions]
        plugin.bind(staged, functions)
        plugin.taping, plugin.taped = True, {}
        try:
            for i, item in enumerate(items):
                session.config.hook.pytest_runtest_protocol(
                    item=item, nextitem=items[i + 1] if i + 1 < len(items) else None
                )
        finally:
            plugin.taping = False
        taped, plugin.taped = plugin.taped, {}
        launcher = loop.session.launcher
        for key in list(getattr(launcher, "history", None) or {}):  # these workers are no one's
            launcher.take_history(key)
        state = plugin.states[PLACEHOLDER]
        if state.infrastructure_error is not None:
            return None
        # A function the run could not finish (a time limit on a slow machine, a crash) has outcomes that
        # come from that, not from its replies: none of its tests is traced.
        stopped = {f for f, r in (state.result.functions.items() if state.result else ()) if r.error_kind}
        found: dict[str, list[ItemTrace]] = {f: [] for f in functions if f not in stopped}
        for key, (function, outcome, tape, calls, flags) in taped.items():
            trace = trace_of(key, function, outcome, tape, calls, flags)
            if trace is not None and function in found:
                found[function].append(trace)
        return found


def grade_here(
    course: Course,
    parcels: list[Parcel],
    *,
    launcher=None,
    course_hash: str = "",
    suite: str = "hidden",
    only: list[str] | None = None,
    on_record: OnRecord | None = None,
    replay: bool | None = None,
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
@dataclass
class Outcome:
    """What grading one submission gave: a record, or why there is none."""

    record: GradeRecord | None = None
    failure: str = ""
    infrastructure: bool = False  # the failure is the grader's (retry elsewhere), not the student's
    fatal: bool = False  # no session can grade anything (the tests do not collect, no sandbox)

    def to_json(self) -> dict:
        return {
            "record": self.record.to_json() if self.record else None,
            "failure": self.failure,
            "infrastructure": self.infrastructure,
            "fatal": self.fatal,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Outcome":
        record = GradeRecord.from_json(data["record"]) if data.get("record") else None
        if data.get("record") and record is None:
            return cls(failure="the grading session sent a record that could not be read", infrastructure=True)
        return cls(record, data.get("failure", ""), bool(data.get("infrastructure")), bool(data.get("fatal")))


_STOP = object()


class HostedSession:
    """A grading session in a thread of its own, with its own sandbox: one submission per :meth:`grade`.

    Started on first use and after a failure of the infrastructure (a fresh sandbox
    and pytest session); :meth:`close` ends it.
    """

    def __init__(
        self,
        course: Course,
        *,
        mode: str = "auto",
        course_hash: str = "",
        only: list[str] | None = None,
        grader: str = "",
        warn: Callable[[str], None] | None = None,
    ):
        self.course = course
        self.mode = mode
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
            launcher = sandbox_launcher(self.course, mode=self.mode, warn=self.warn)
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
            self.course, launcher=launcher, course_hash=self.course_hash, only=self.only, grader=self.grader
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
