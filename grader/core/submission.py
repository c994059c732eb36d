"""A submission as the tests see it: remote functions behind the trusted boundary.

Tests receive an :class:`Implementation`; ``impl.gae_advantages(...)`` sends the
arguments to the worker, which runs the student's function, and brings back the
result as plain data. This module also keeps, per exercise, the time spent and
why an exercise became unavailable (missing, import failure, time limit, crash).

A call is charged to the exercise of the function called, unless the
Implementation is scoped to another exercise: a lab's training loop calls
``impl.charged_to("cartpole_ppo_lab").gae_advantages``, so its thousands of calls
spend the lab's time limit, and a failure in the lab costs the lab, never the
unit exercise of the same function (nor the other way round).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.course import Course
from grader.errors import GraderError
from grader.worker import runtime
from grader.worker.client import (
    Launcher,
    LocalLauncher,
    WorkerDied,
    WorkerProcess,
    WorkerStartError,
    WorkerTimeout,
    describe_exit,
)
from grader.worker.replies import ReplyRejected, ReplyTooLarge, parse_reply


# -- what a failing call raises in the trusted process -----------------------------
class StudentError(Exception):
    """The student's function raised. Subclasses also derive from the builtin type
    (``ValueError`` ...), so ``pytest.raises(ValueError)`` works across the boundary."""

    function: str = ""
    error_type: str = ""
    where: tuple[str, ...] = ()

    def describe(self) -> str:
        text = f"{self.function} raised {self.error_type}"
        message = str(self)
        if message:
            text += f": {message}"
        if self.where:
            text += f" (at {self.where[-1]})"
        return text


class FunctionUnavailable(Exception):
    """The function cannot be graded any further in this submission.

    ``reason`` is short (it becomes the function's ``error``); ``str()`` is the
    message for the student; ``kind`` is what happened, for reports on limits:
    one of :data:`UNAVAILABLE_KINDS`.
    """

    def __init__(self, reason: str, message: str, kind: str):
        super().__init__(message)
        self.reason = reason
        self.kind = kind


UNAVAILABLE_KINDS = ("time limit", "crash", "reply limit", "missing", "import", "unknown", "submission deadline")

# The trusted side's own time on one submission (decoding, the tests' comparisons, the diagnosis, re-imports
# after a lost worker) is charged to no exercise: it is bounded per submission instead, by this many times the
# sum of the course's time limits (every exercise's, and one import's per module), plus DEADLINE_SLACK seconds.
DEADLINE_FACTOR = 3.0
DEADLINE_SLACK = 120.0


def submission_deadline(course: Course) -> float:
    """Seconds the grader may spend on one submission of ``course``, all told (course.yaml
    ``sandbox.submission_seconds``, else from the time limits)."""
    given = (getattr(course, "sandbox", None) or {}).get("submission_seconds")
    if given:
        return float(given)
    limits = sum(e.time_limit for e in course.exercises) + course.time_limit * len(set(course.modules))
    return DEADLINE_FACTOR * limits + DEADLINE_SLACK


class UnsupportedReturn(Exception):
    """The function returned something that is not plain data."""


_error_classes: dict[str, type] = {}


def _student_error_class(builtin_bases: list[str]) -> type:
    for name in builtin_bases:
        base = getattr(builtins, name, None)
        # Only ordinary exceptions; a remote SystemExit must not stop this process.
        if not (isinstance(base, type) and issubclass(base, Exception)) or base is Exception:
            continue
        if name not in _error_classes:
            try:
                _error_classes[name] = type(f"Student{name}", (StudentError, base), {})
            except TypeError:
                continue
        return _error_classes[name]
    return StudentError


@dataclass(frozen=True)
class Record:
    """A dataclass instance returned by the student: its type name and fields."""

    type_name: str
    fields: dict

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "fields")
        if name in fields:
            return fields[name]
        raise AttributeError(f"{object.__getattribute__(self, 'type_name')} has no field {name!r}")


def wire(tree):
    """:func:`runtime.encode` of a decoded value, whose student dataclasses are :class:`Record` instances
    (kept so in the grader's cache: the labs' records, the hidden tests' traces)."""
    if isinstance(tree, Record):
        return {"__dataclass__": tree.type_name, "fields": {k: wire(v) for k, v in tree.fields.items()}}
    if isinstance(tree, tuple):
        return {"__tuple__": [wire(v) for v in tree]}
    if isinstance(tree, list):
        return [wire(v) for v in tree]
    if isinstance(tree, dict):
        return {"__dict__": {k: wire(v) for k, v in tree.items()}}
    return runtime.encode(tree)


# -- the submission -----------------------------------------------------------------
@dataclass(frozen=True)
class Crossing:
    """One request sent to the worker and its reply as received (a tape's entry)."""

    request: dict
    reply: dict
    exercise: str  # the exercise charged
    seconds: float  # the wall time it took


@dataclass(frozen=True)
class BatchMessage:
    """One exercise's batches, as the worker is sent them: the frame of a ``batches`` request (built once
    per session) and its parts, (exercise charged, requests, cutoff seconds) each."""

    frame: bytes
    parts: tuple[tuple[str, int, float], ...]


class ReplySource:
    """Where a submission's replies come from: its worker, asked one request at a time (this class).

    The one seam of :class:`Submission` for the hidden tests' replay (:mod:`grader.core.replay`, which
    sets :attr:`Submission.source` around a test's run): a :class:`~grader.core.replay.Tape` asks the
    worker and keeps every crossing; :class:`~grader.core.replay.Recorded` answers from the replies
    the test's replay batch already gave, for as long as the test asks what the batch asked.
    """

    # May a read of a module-level value be answered by the same read since student code last ran
    # (Submission._read)? Not while taping (each test's crossings stand on their own) nor while a test
    # reads its batch's replies (the batch did not either).
    reads_kept = True

    def answer(self, request: dict) -> dict | None:
        """The reply to ``request`` (its ``module`` included) without crossing, or None: ask the worker."""
        return None

    def crossed(self, crossing: Crossing) -> None:
        """``crossing`` was made (the worker answered)."""


WORKER = ReplySource()


@dataclass
class FunctionState:
    spent: float = 0.0
    unavailable: FunctionUnavailable | None = None
    not_implemented: bool = False


@dataclass
class Submission:
    """One submission (a directory shaped like ``exercises/`` or one ``.py`` file)."""

    path: Path
    course: Course
    launcher: Launcher | None = None
    worker: WorkerProcess | None = None
    states: dict[str, FunctionState] = field(default_factory=dict)
    broken_modules: dict[str, FunctionUnavailable] = field(default_factory=dict)
    imported: set = field(default_factory=set)
    deadline: float | None = None  # seconds for the whole submission (default: submission_deadline(course))
    started: float = field(default_factory=time.monotonic)

    # Replies to ``get`` since the worker last ran student code (a call, a map, an import):
    # reading a module-level value again, with nothing run in between, is answered here
    # (decoded afresh each time) instead of crossing again. Per-part concept checks read
    # one answer once per part.
    _read: dict = field(default_factory=dict, repr=False)
    _read_from: Any = field(default=None, repr=False)
    # Where replies come from (the worker, unless the replay says otherwise for one test's run).
    source: ReplySource = field(default=WORKER, repr=False)

    def __post_init__(self):
        if self.deadline is None:
            self.deadline = submission_deadline(self.course)

    def state(self, function: str) -> FunctionState:
        return self.states.setdefault(function, FunctionState())

    @property
    def reply_limit(self) -> int:
        """The longest reply its workers may send (course.yaml ``sandbox.reply_kb`` in a sandbox)."""
        return (self.launcher or LocalLauncher()).reply_bytes

    @property
    def expired(self) -> bool:
        """Has grading this submission taken longer than its deadline?"""
        return time.monotonic() - self.started > self.deadline

    def check_deadline(self, exercise: str) -> None:
        """Past the submission's deadline, ``exercise`` is unavailable (its remaining tests fail at once).

        Checked at every request: the trusted side's work between requests (comparing and
        decoding replies, re-importing after a lost worker) ends at the next one, and costs this
        submission only.
        """
        if not self.expired:
            return
        state = self.state(exercise)
        if state.unavailable is None:
            state.unavailable = FunctionUnavailable(
                f"grading took more than {self.deadline:g} s",
                f"grading this submission took more than {self.deadline:g} s in all (the exercises' time "
                f"limits and the grader's own work on the replies); {exercise}'s remaining tests were not run",
                "submission deadline",
            )
        raise state.unavailable

    def close(self) -> None:
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def _time_limit(self, function: str) -> float:
        try:
            return self.course.exercise(function).time_limit
        except KeyError:
            return self.course.time_limit

    def _module_of(self, function: str) -> str:
        try:
            return self.course.exercise(function).module
        except KeyError:
            raise FunctionUnavailable("unknown function", f"{function} is not part of this course", "unknown") from None

    def _ensure_worker(self) -> WorkerProcess:
        if self.worker is None or not self.worker.running:
            if self.worker is not None:
                self.worker.kill()
            self.worker = WorkerProcess(self.path, self.launcher)
            self.imported = set()
            try:
                self.worker.start()
            except (WorkerDied, WorkerTimeout, GraderError, OSError) as exc:
                self._lose_worker()
                raise WorkerStartError(f"could not start a worker: {exc}") from None
        return self.worker

    def lose_worker(self) -> None:
        """End the worker: the next request starts a new one."""
        self._lose_worker()

    def _lose_worker(self) -> None:
        if self.worker is not None:
            self.worker.kill()
        self.worker = None

    def _import(self, module: str) -> None:
        """Import the module in the worker; import trouble disables the whole module."""
        if module in self.broken_modules:
            raise self.broken_modules[module]
        worker = self._ensure_worker()
        if module in self.imported:
            return
        limit = self.course.time_limit
        self._read = {}  # a module's code runs: what was read may change
        try:
            reply = worker.request({"op": "import", "module": module}, timeout=limit)
        except WorkerTimeout:
            self._lose_worker()
            problem = FunctionUnavailable(
                f"importing {module}.py timed out",
                f"importing {module}.py did not finish within {limit:g} s (is there a loop or a "
                "long computation at module level?)",
                "time limit",
            )
            self.broken_modules[module] = problem
            raise problem from None
        except WorkerDied as exc:
            self._lose_worker()
            problem = FunctionUnavailable(
                f"{module}.py ended the process on import",
                f"importing {module}.py ended the grading process ({describe_exit(exc.returncode)}); "
                "remove module-level code that exits",
                "crash",
            )
            self.broken_modules[module] = problem
            raise problem from None
        except ReplyRejected as exc:
            if isinstance(exc, ReplyTooLarge):
                self._lose_worker()
            problem = FunctionUnavailable(
                f"importing {module}.py broke the protocol", f"importing {module}.py sent {exc}", "reply limit"
            )
            self.broken_modules[module] = problem
            raise problem from None
        if not reply.get("ok"):
            problem = _import_problem(module, reply)
            self.broken_modules[module] = problem
            raise problem
        self.imported.add(module)

    def call(
        self, function: str, args: tuple, kwargs: dict, *, readonly_args: bool = False, charge_to: str | None = None
    ) -> dict:
        """Run ``function(*args, **kwargs)`` in the worker; return the decoded reply.

        The call's time and failures are charged to exercise ``charge_to`` (default:
        ``function``'s own exercise). ``readonly_args``: the worker hands the function
        read-only arrays, so a write into its inputs raises in the student's code.

        Raises
        ------
        FunctionUnavailable, StudentError, UnsupportedReturn
        """
        return self._request(
            function,
            {
                "op": "call",
                "function": function,
                "args": runtime.encode(list(args)),
                "kwargs": runtime.encode(dict(kwargs)),
                "readonly_args": readonly_args,
            },
            charge_to=charge_to,
        )

    def map(
        self,
        function: str,
        args: list,
        rows: list[int],
        count: int,
        kwargs: dict,
        *,
        charge_to: str | None = None,
        tentative: bool = False,
    ):
        """``count`` calls of ``function`` in one crossing; their results stacked leaf by leaf.

        Positional arguments at the indices ``rows`` have one row per call along their
        first axis; the others and ``kwargs`` are the same for every call (see
        ``runtime.Worker.map``). Time is charged as for :meth:`call`. ``tentative``:
        a failure leaves the exercise's budget and state as they were before (the
        caller will make the same calls one by one, and those decide), except a time-out:
        one by one, the same calls would take at least as long, so the time is spent and
        the exercise unavailable, as they would be (and a looping function costs its
        time limit once, not twice).

        Raises
        ------
        FunctionUnavailable, StudentError, UnsupportedReturn
        """
        request = {
            "op": "map",
            "function": function,
            "args": runtime.encode(list(args)),
            "rows": sorted(int(r) for r in rows),
            "count": int(count),
            "kwargs": runtime.encode(dict(kwargs)),
        }
        if not tentative:
            return self._request(function, request, charge_to=charge_to)["value"]
        state = self.state(charge_to or function)
        before = (state.spent, state.unavailable, state.not_implemented)
        try:
            return self._request(function, request, charge_to=charge_to)["value"]
        except (FunctionUnavailable, StudentError, UnsupportedReturn) as problem:
            if not (isinstance(problem, FunctionUnavailable) and problem.kind == "time limit"):
                state.spent, state.unavailable, state.not_implemented = before
            raise

    def get(self, name: str):
        """The value of a module-level name of the submission (course.yaml gives its module)."""
        return self._request(name, {"op": "get", "name": name})["value"]

    def _request(self, name: str, request: dict, charge_to: str | None = None) -> dict:
        """Send ``request`` about ``name`` within the time budget of exercise ``charge_to``
        (default ``name``); interpret the reply."""
        exercise = charge_to or name
        state = self.state(exercise)
        if state.unavailable is not None:
            raise state.unavailable
        self.check_deadline(exercise)
        module = self._module_of(name)
        try:
            self._import(module)
        except FunctionUnavailable as problem:
            state.unavailable = problem
            raise
        limit = self._time_limit(exercise)
        during = "" if exercise == name else f" while calling {name}"
        worker = self._ensure_worker()
        reading = request.get("op") == "get"
        request = dict(request, module=module)
        kept = self.source.answer(request)
        if kept is not None:
            started = time.monotonic()
            try:  # reading a reply is charged as when it crosses (the batch's time already was)
                return self._interpret(name, dict(kept), exercise, observed=True)
            finally:
                state.spent += time.monotonic() - started
        if not reading or self._read_from is not worker or not self.source.reads_kept:
            self._read, self._read_from = {}, worker
        elif (module, name) in self._read:
            return self._interpret(name, dict(self._read[(module, name)]), exercise)
        started = time.monotonic()
        try:
            reply = worker.request(request, timeout=limit - state.spent)
        except WorkerTimeout:
            self._lose_worker()
            state.unavailable = FunctionUnavailable(
                f"time limit exceeded ({limit:g} s)",
                f"{exercise} used up its time limit of {limit:g} s{during} (an endless loop, or far too slow); "
                "its remaining tests were not run",
                "time limit",
            )
            raise state.unavailable from None
        except WorkerDied as exc:
            worker.observe_memory(name)
            self._lose_worker()
            state.unavailable = FunctionUnavailable(
                "crashed the grading process",
                f"{name} ended the grading process ({describe_exit(exc.returncode)}); "
                "do not call sys.exit/os._exit or crash the interpreter",
                "crash",
            )
            raise state.unavailable from None
        except ReplyTooLarge as exc:
            self._lose_worker()  # the rest of that reply is still in the pipe
            state.unavailable = FunctionUnavailable(
                "reply over the size limit", f"{name} sent {exc}; its remaining tests were not run", "reply limit"
            )
            raise state.unavailable from None
        except ReplyRejected as exc:
            raise UnsupportedReturn(f"{name} returned {exc}") from None
        finally:
            state.spent += time.monotonic() - started
        self.source.crossed(Crossing(request, dict(reply), exercise, time.monotonic() - started))
        if reading and reply.get("ok"):
            self._read[(module, name)] = dict(reply)  # as received: _interpret decodes a copy
        # Reading the reply is charged to the exercise too: the time limit bounds what a call
        # costs the grader, not only the worker, and every exercise's limit bounds a submission.
        started = time.monotonic()
        try:
            return self._interpret(name, reply, exercise)
        finally:
            state.spent += time.monotonic() - started

    # -- the replay's batches (grader.core.replay) ------------------------------------------
    def can_batch(self, exercise: str, modules: list[str]) -> bool:
        """Can a batch of ``exercise`` be sent: the exercise available, its modules imported, a worker
        running, time left? (When not, the tests meet the same trouble, and say so.)"""
        if self.state(exercise).unavailable is not None or self.expired:
            return False
        try:
            for module in modules:
                self._import(module)
            self._ensure_worker()
        except (FunctionUnavailable, WorkerStartError):
            return False
        return True

    def send_batches(self, messages: list[BatchMessage]) -> Iterator[tuple[list[dict] | None, float, int]]:
        """Send ``messages`` (each one exercise's ``batches`` request, built once) one after the other,
        and yield, part by part, its replies as received, the seconds it took and what keeping them
        holds (bytes, at least).

        A message is sent once the last reply of the one before has arrived, and before that reply is
        read: the worker answers it while the grader reads and judges the last. Never earlier: while
        student code answers one exercise's requests, no input of another exercise is in the worker's
        process, its request pipe included. (Code that writes that last reply itself, from the worker's
        own process, can have the next request sent while it still runs, as it could read a test's next
        request before a worker does without the replay: the reply it writes is then one too many, and
        the worker is lost.)

        The worker answers the parts one after the other, each as soon as it is done, and each is
        timed here as it arrives: at most its exercise's time left, its ``cutoff`` and the
        submission's deadline. A part that says nothing (too slow, the worker died, broke the
        protocol, wrote a reply of its own) yields None and ends the batches: the worker is lost,
        and whatever it did, the tests meet it afresh. The replies are not interpreted and the time
        is not charged here (grader.core.replay does both).
        """
        worker = self._ensure_worker()
        self._read = {}  # student code runs
        if messages and not self._send_batch(worker, messages[0]):
            yield None, 0.0, 0
            return
        for i, message in enumerate(messages):
            for j, (exercise, count, cutoff) in enumerate(message.parts):
                started = time.monotonic()
                left = self.deadline - (started - self.started)
                timeout = min(self._time_limit(exercise) - self.state(exercise).spent, cutoff, left)
                try:
                    data = worker.receive_bytes(timeout=timeout)
                except (WorkerTimeout, WorkerDied, ReplyRejected):
                    data = None
                # The next exercise's request goes out before this reply is read: the worker answers it meanwhile.
                sent = data is None or j < len(message.parts) - 1 or i + 1 == len(messages)
                sent = sent or self._send_batch(worker, messages[i + 1])
                try:
                    reply = parse_reply(data) if data is not None else None
                except ReplyRejected:
                    reply = None
                replies = reply.get("replies") if reply is not None and reply.get("ok") else None
                if not (isinstance(replies, list) and len(replies) == count):
                    # Not a batch's answer: whatever the worker did instead (wrote a reply of its own,
                    # ended, went on sending), the tests must meet it afresh, as they would have.
                    self._lose_worker()
                    yield None, time.monotonic() - started, 0
                    return
                yield replies, time.monotonic() - started, worker.last_reply_bytes
                if not sent:
                    yield None, 0.0, 0
                    return

    def _send_batch(self, worker: WorkerProcess, message: BatchMessage) -> bool:
        """Write ``message`` (a worker reads a request whole before it runs any: reading it takes no
        student time); False, and the worker lost, when it could not be written."""
        try:
            worker.send(message.frame, timeout=min(sum(cutoff for _, _, cutoff in message.parts), self.deadline))
        except (WorkerTimeout, WorkerDied):
            self._lose_worker()
            return False
        return True

    def learn_from_batch(self, exercise: str, replies: list[dict]) -> None:
        """What ``replies`` (those its replayed tests read, of ``exercise``) tell of the submission as
        :meth:`_interpret` would learn it: a NotImplementedError marks the exercise not implemented."""
        if any(r.get("kind") == "raised" and r.get("error_type") == "NotImplementedError" for r in replies):
            self.state(exercise).not_implemented = True

    def observe_batches(self, raised: list[str]) -> None:
        """After the batches in which the functions ``raised`` raised: was the worker at its memory limit?
        Checked once for all of them (a peak only grows), naming the function only when one alone
        raised; the tests that read the batches' replies later do not check again."""
        if raised and self.worker is not None:
            self.worker.observe_memory(raised[0] if len(set(raised)) == 1 else None)

    def _interpret(self, function: str, reply: dict, exercise: str | None = None, observed: bool = False) -> dict:
        """The reply's value, or what it means as an exception; ``observed``: a batch's reply, whose
        worker's memory was checked after the batches (:meth:`observe_batches`)."""
        state = self.state(exercise or function)
        if reply.get("ok"):
            try:
                reply["value"] = runtime.decode(reply.get("value"), Record)
            except (runtime.WireError, ValueError, TypeError) as exc:
                raise UnsupportedReturn(f"{function} returned a value that could not be read: {exc}") from None
            return reply
        kind = reply.get("kind")
        if kind == "missing":
            state.unavailable = FunctionUnavailable(
                "not defined", f"{function} is not defined in your submission (check its name and module)", "missing"
            )
            raise state.unavailable
        if kind == "import":
            raise _import_problem(self._module_of(function), reply)
        if kind == "cell":
            state.unavailable = _cell_problem(function, reply)
            raise state.unavailable
        if kind == "unsupported":
            raise UnsupportedReturn(
                f"{function} returned unsupported type {reply.get('message', '?')}; "
                "return numbers, arrays, tuples, lists or dicts of them"
            )
        if kind == "too large":
            raise UnsupportedReturn(f"{function} returned {reply.get('message', 'a value too large')}")
        if kind == "raised":
            if self.worker is not None and not observed:
                self.worker.observe_memory(function)
            cls = _student_error_class(list(reply.get("builtin_bases", [])))
            error = cls(str(reply.get("message", "")))
            error.function = function
            error.error_type = str(reply.get("error_type", "Exception"))
            error.where = tuple(str(w) for w in reply.get("where", []))
            if error.error_type == "NotImplementedError":
                state.not_implemented = True
            raise error
        raise UnsupportedReturn(f"the worker gave an unexpected answer for {function}")


def _import_problem(module: str, reply: dict) -> FunctionUnavailable:
    error_type = reply.get("error_type", "Exception")
    message = reply.get("message", "")
    where = reply.get("where") or []
    location = f" ({where[-1]})" if where else ""
    if error_type == "ModuleNotFoundError" and "has no file" in message:
        return FunctionUnavailable("not defined", f"{message}; every function of {module}.py is missing", "missing")
    if error_type == "SystemExit":
        return FunctionUnavailable(
            f"{module}.py exits on import",
            f"importing {module}.py called sys.exit(); remove module-level code that exits",
            "crash",
        )
    return FunctionUnavailable(
        f"could not import {module}.py: {error_type}",
        f"could not import {module}.py: {error_type}: {message}{location}",
        "import",
    )


def _cell_problem(function: str, reply: dict) -> FunctionUnavailable:
    """The notebook cell of ``function`` failed as it ran: that exercise, and it alone, is not graded.
    The innermost line named is in a cell (feedback names it 'the cell of ..., line n')."""
    error_type = reply.get("error_type", "Exception")
    message = reply.get("message", "")
    where = reply.get("where") or []
    # A top-level line's frame is '<module>', a name no student knows.
    location = f" (at {where[-1].removesuffix(', in <module>')})" if where else ""
    return FunctionUnavailable(
        f"its cell stopped with {error_type}",
        f"{function} was not graded: its solution cell stopped with {error_type}: {message}{location} when "
        "it ran. Every line of a solution cell runs at grading, as in Kernel > Restart & Run All: "
        "a print or a call there must work on its own (keep scratch work in cells of your own).",
        "import",
    )


class RemoteFunction:
    """A student's function, callable from the tests like a local one."""

    def __init__(self, submission: Submission, name: str, charge_to: str | None = None):
        self._submission = submission
        self._charge_to = charge_to
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self._submission.call(self.__name__, args, kwargs, charge_to=self._charge_to)["value"]

    def call_with_readonly_inputs(self, *args, **kwargs):
        """Call with every array argument read-only in the worker (a write into one raises there)."""
        return self._submission.call(self.__name__, args, kwargs, readonly_args=True, charge_to=self._charge_to)[
            "value"
        ]

    def map(self, args: list, rows: list[int], count: int, kwargs: dict, *, tentative: bool = False):
        """``count`` calls in one crossing (:meth:`Submission.map`)."""
        return self._submission.map(
            self.__name__, args, rows, count, kwargs, charge_to=self._charge_to, tentative=tentative
        )

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"


class Implementation:
    """What a test receives as ``impl``: attribute access gives the student's functions."""

    def __init__(self, submission: Submission, label: str = "submission", charge_to: str | None = None):
        self._submission = submission
        self._label = label
        self._charge_to = charge_to

    def __getattr__(self, name: str) -> RemoteFunction:
        if name.startswith("_"):
            raise AttributeError(name)
        return RemoteFunction(self._submission, name, self._charge_to)

    def charged_to(self, exercise: str) -> "Implementation":
        """The same functions, their calls charged to ``exercise`` (its time limit, its failures)."""
        return Implementation(self._submission, self._label, charge_to=exercise)

    def value(self, name: str):
        """A module-level value of the submission (e.g. an answer constant)."""
        return self._submission.get(name)

    def __repr__(self) -> str:
        return f"<{self._label}>"


def reply_limit_of(impl: Implementation) -> int:
    """The longest reply ``impl``'s workers may send (a lab's replay sizes its crossings under it)."""
    return impl._submission.reply_limit
