"""The hidden tests' replay: grade the tests a submission answers exactly as the reference does, in a
few crossings.

A hidden test is deterministic: its inputs are fixed or drawn from a seeded, cached
stream (``grader.testing``), and what it asks next, and its verdict, depend only on
what the student's functions answered. So when a submission's worker gives, to every
request one test of the reference made, a reply identical to the reference's, the test
would ask the same things and pass as it passed for the reference; running it again
would only repeat the same crossings one at a time.

:class:`ReplayPlugin` owns all of it in a grading session, as pytest's cacheprovider owns its cache:

- the traces (:class:`ItemTrace`: one reference run of a test, the requests it sent, the replies
  it got, its outcome and the first calls kept as evidence), read from the grader's cache
  (:mod:`grader.core.cache`) or recorded by running the reference solutions, and the course's
  stubs, through the session's tests with a :class:`Tape` as their submission's reply source;
- the batches (:class:`BatchRunner`): an exercise's traced requests, sent to a submission's worker
  in one crossing per exercise (frames built once per session), every reply compared with the
  reference's (:func:`same_reply`): identical values, bit for bit and type for type; an error of
  the same type (its text is the student's, and no test judges it). The tests whose replies are
  all identical pass as the reference's did; from an exercise's first test that differs on, its
  tests run as always, each reading its batch's replies first (:class:`Recorded`);
- what the worker may reach: one exercise's requests at a time. The next exercise's are sent
  once the last one's are answered, so while student code runs, no input of another exercise is
  in its process (stack, objects, module state, the request pipe's unread bytes). Exercises that
  send no input (the concept questions' reads of a value by name) go together.

A batch that says nothing (a time-out past its cutoff, a crash, a reply the protocol refuses)
charges nothing: the tests then run as always, and decide. A test is traced only when every
crossing it made is a ``call``, ``map`` or ``get`` charged to its own exercise, answered with a
value or an error, and it passed (or, for the stubs, whatever it earned).
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import hypothesis
import pytest

from grader.core import cache
from grader.core.diagnosis import PASSED_PER_TEST, Call, Raised, call_bytes
from grader.core.fingerprint import course_fingerprint
from grader.core.plugin import REPORTED, GradingPlugin, function_of
from grader.core.results import TestOutcome
from grader.core.staging import stage_submission
from grader.core.submission import WORKER, BatchMessage, Crossing, Record, ReplySource, Submission, wire
from grader.worker import replies, runtime

# A batch that takes longer than this many times the reference's time for the same requests (and at
# least MIN_CUTOFF seconds) says nothing: the tests run as always. A looping function costs it once.
CUTOFF_FACTOR = 25.0
MIN_CUTOFF = 0.2
# Batches that said nothing cost a submission at most about this much of the grader's time (each ends at
# its cutoff); then its remaining exercises are graded by their tests alone.
INCONCLUSIVE_SECONDS = 2.0
INCONCLUSIVE_ROUNDS = 3  # and at most this many (each starts a worker and imports the modules again)
# What a replay keeps of a submission's replies for its tests to read, at most (counted as held: a
# reply's bytes and 40 per value); past it, the tests ask again (SUBMISSION_EVIDENCE_BYTES's half).
PREFETCH_BYTES = 24 * 2**20
# A batch's expected reply stays under this share of each bound the trusted side puts on a reply
# (its bytes, its lists and objects, its values), so that an honest submission's reply is never refused.
SHARE = 0.5


@dataclass(kw_only=True)
class ItemTrace:
    """One hidden test's run on the reference: what it asked, what it got, what it earned."""

    key: str  # the test's node id in the session
    function: str  # its exercise
    outcome: TestOutcome  # what it earned (a copy is handed out each time: the diagnosis may rewrite it)
    requests: list[dict]
    replies: list[dict]
    seconds: float  # the run's wall time for the requests
    calls: list[Call] = field(default_factory=list)  # the calls kept as evidence (grader.core.plugin.record)
    size: tuple[int, int, int] = (0, 0, 0)  # its replies' bytes, lists and objects, values (as JSON)
    relation: bool = False  # as grader.core.plugin.GradingPlugin.record takes them
    claims: bool = True
    # A failed test's message quotes this, its last reply's innermost frame, once ("": it quotes no
    # frame of any reply; None: it quotes others, or several times).
    quoted: str | None = ""

    @property
    def modules(self) -> list[str]:
        return sorted({r["module"] for r in self.requests})

    @functools.cached_property
    def sizes(self) -> list[int]:
        """Each kept call's bytes (grader.core.diagnosis.call_bytes), counted once."""
        return [call_bytes(call) for call in self.calls]

    def agrees(self, got: list[dict]) -> TestOutcome | None:
        """The outcome this test would end with, answered ``got`` (at least as many replies as it had);
        None when it might end otherwise.

        A passed test reads values and the types of errors. A failed one may quote anything of a
        reply in its message: every field must be the same, but for the frames of the errors (the
        lines of the student's ``raise``) that the message does not quote; when it quotes the last
        error's innermost frame, once (``quoted``), it quotes the student's own instead.
        """
        o = self.outcome
        if o.passed:
            if all(same_reply(g, w) for g, w in zip(got, self.replies)):
                return TestOutcome(o.name, True, o.weight, o.message, o.kind, o.gate)
            return None
        if self.quoted is None:  # the message quotes frames of several errors: all must be the same
            return (
                TestOutcome(o.name, False, o.weight, o.message, o.kind, o.gate)
                if all(identical(g, w) for g, w in zip(got, self.replies))
                else None
            )
        n = len(self.replies)
        if not all(identical(_frameless(g), _frameless(w)) for g, w in zip(got[:n], self.replies)):
            return None
        if not self.quoted:  # no frame is quoted: the message is the same whatever the lines
            return TestOutcome(o.name, False, o.weight, o.message, o.kind, o.gate)
        where = got[n - 1].get("where")
        if not where:
            return None
        before, after = o.message.split(self.quoted)
        return TestOutcome(o.name, False, o.weight, before + where[-1] + after, o.kind, o.gate)

    def to_json(self) -> dict:
        """Plain data, by field name (the calls' values in the wire format); raises UnsupportedValue."""
        return {
            "key": self.key,
            "function": self.function,
            "outcome": self.outcome.to_json(),
            "requests": self.requests,
            "replies": self.replies,
            "seconds": self.seconds,
            "calls": [_call_json(c) for c in self.calls],
            "size": list(self.size),
            "relation": self.relation,
            "claims": self.claims,
            "quoted": self.quoted,
        }

    @classmethod
    def from_json(cls, data: dict) -> ItemTrace:
        """The trace :meth:`to_json` wrote; raises (KeyError, TypeError, ValueError, WireError) otherwise."""
        return cls(
            key=str(data["key"]),
            function=str(data["function"]),
            outcome=TestOutcome.from_json(data["outcome"]),
            requests=list(data["requests"]),
            replies=list(data["replies"]),
            seconds=float(data["seconds"]),
            calls=[_call_of(c) for c in data["calls"]],
            size=tuple(int(n) for n in data["size"]),
            relation=bool(data["relation"]),
            claims=bool(data["claims"]),
            quoted=None if data["quoted"] is None else str(data["quoted"]),
        )


def _call_json(call: Call) -> dict:
    raised = isinstance(call.outcome, Raised)
    return {
        "args": runtime.encode(list(call.args)),
        "kwargs": runtime.encode(dict(call.kwargs)),
        "raised": call.outcome.error_type if raised else None,
        "outcome": None if raised else wire(call.outcome),
        "readonly": call.readonly,
    }


def _call_of(data: dict) -> Call:
    raised = data["raised"]
    return Call(
        args=tuple(runtime.decode(data["args"])),
        kwargs=runtime.decode(data["kwargs"]),
        outcome=Raised(raised) if raised is not None else runtime.decode(data["outcome"], Record),
        readonly=bool(data["readonly"]),
    )


def _frameless(reply: dict) -> dict:
    return dict(reply, where=None) if "where" in reply else reply


def trace_of(
    key: str,
    function: str,
    outcome: TestOutcome,
    tape: list[Crossing],
    observed: list[Call] | None,
    flags: tuple[bool, bool] = (False, True),
) -> ItemTrace | None:
    """The trace of a test's run (``flags``: its relation and claims), or None when it cannot be replayed.

    A test that asked nothing is not traced: its outcome may come from the submission's state (an
    exercise made unavailable earlier), not from replies.
    """
    if not tape:
        return None
    for crossing in tape:
        reply = crossing.reply
        if crossing.exercise != function or crossing.request.get("op") not in runtime.BATCHED:
            return None
        if not (reply.get("ok") is True or reply.get("kind") == "raised"):
            return None
    text = json.dumps([c.reply for c in tape])
    calls = list(observed or [])
    quoted = "" if outcome.passed else _quoted(outcome.message, [c.reply for c in tape])
    relation, claims = flags
    return ItemTrace(
        key=key,
        function=function,
        outcome=outcome,
        requests=[c.request for c in tape],
        replies=[c.reply for c in tape],
        seconds=sum(c.seconds for c in tape),
        calls=calls[:PASSED_PER_TEST] if outcome.passed else calls,
        size=(len(text), text.count("[") + text.count("{"), text.count(",")),
        relation=relation,
        claims=claims,
        quoted=quoted,
    )


def _quoted(message: str, tape: list[dict]) -> str | None:
    """Which frame of the errors in ``tape`` ``message`` quotes (see :attr:`ItemTrace.quoted`)."""
    frames = [r["where"][-1] for r in tape if r.get("where")]
    shown = [f for f in frames if f in message]
    if not shown:
        return ""
    last = tape[-1].get("where") if tape else None
    if last and set(shown) == {last[-1]} and message.count(last[-1]) == 1:
        return last[-1]
    return None


# -- comparing replies ------------------------------------------------------------------------
def same_reply(got: dict, want: dict) -> bool:
    """Would a test read ``got`` exactly as it read ``want``? Values identical; errors of one type."""
    if got.get("ok") is not want.get("ok"):
        return False
    if want.get("ok"):
        return "value" in got and identical(got["value"], want.get("value"))
    return (
        got.get("kind") == want.get("kind") == "raised"
        and got.get("error_type") == want.get("error_type")
        and got.get("builtin_bases") == want.get("builtin_bases")
    )


def identical(a, b) -> bool:
    """Equal JSON values of the same types: ``1`` is not ``1.0`` nor ``True``, ``0.0`` is not ``-0.0``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(identical(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


# -- the batches ---------------------------------------------------------------------------------
@dataclass
class Batch:
    """Consecutive traced tests of one exercise, sent in one crossing."""

    exercise: str
    traces: list[ItemTrace]
    request: dict  # the ``batch`` request (sent within a ``batches`` request's frame)
    modules: list[str]
    count: int
    cutoff: float


class BatchRunner:
    """The traces of a session's tests, by node id, and the batches built from them once.

    ``traces``: the reference's, whose requests the batches send; ``others``: runs of other
    code through the same tests (the course's stubs), each a list by node id. A test whose
    replies agree with one of its runs ends as that run ended.
    """

    def __init__(self, traces: dict[str, ItemTrace], reply_limit: int, others: dict[str, list[ItemTrace]] = None):
        self.traces = traces
        self.others = {
            key: [t for t in found if key in traces and _prefix(t.requests, traces[key].requests)]
            for key, found in (others or {}).items()
        }
        self.bounds = (reply_limit * SHARE, replies.MAX_CONTAINERS * SHARE, replies.MAX_VALUES * SHARE)
        self._batches: dict[tuple[str, ...], list[Batch]] = {}
        self._messages: dict[tuple[int, ...], BatchMessage] = {}
        self.crossings = 0  # messages sent (for benchmarks)

    def batches(self, keys: list[str]) -> list[Batch]:
        """The batches of the traced tests among ``keys`` (in order), by exercise; built once per list."""
        plan = tuple(keys)
        if plan not in self._batches:
            by_exercise: dict[str, list[ItemTrace]] = {}
            for key in keys:
                trace = self.traces.get(key)
                if trace is not None and trace.outcome.passed and all(s <= b for s, b in zip(trace.size, self.bounds)):
                    by_exercise.setdefault(trace.function, []).append(trace)
            built = []
            for exercise, traces in by_exercise.items():
                chunk: list[ItemTrace] = []
                for trace in traces:
                    if chunk and any(sum(t.size[i] for t in chunk) + trace.size[i] > self.bounds[i] for i in range(3)):
                        built.append(_batch(exercise, chunk))
                        chunk = []
                    chunk.append(trace)
                if chunk:
                    built.append(_batch(exercise, chunk))
            self._batches[plan] = built
        return self._batches[plan]

    def run(self, submission: Submission, keys: dict[str, str]) -> BatchFindings:
        """Send the traced tests among ``keys`` (node id -> its exercise, every test to run) to
        ``submission``'s worker, exercise by exercise, and judge the replies.

        An exercise whose every test among ``keys`` is traced and agrees with a recorded run ends
        there: its tests end as those runs ended (:attr:`BatchFindings.agreed`). The others' tests run
        as tests, but each reads the replies its batch already gave, in order, for as long as it asks
        what the batch asked (:attr:`BatchFindings.prefetched`): a submission answers each hidden input
        once, whatever it can tell of a batch. A conclusive batch's time is charged to its exercise.
        A batch that says nothing (past its cutoff, a crash, a reply of its own) charges nothing and
        leaves its exercise's tests to ask afresh (a new worker); after INCONCLUSIVE_SECONDS of those
        in a submission, no more batches are sent.
        """
        result = BatchFindings()
        planned: dict[str, set[str]] = {}
        for key, exercise in keys.items():
            planned.setdefault(exercise, set()).add(key)
        keys = list(keys)
        batched = {t.key for b in self.batches(keys) for t in b.traces}
        whole = {f for f, found in planned.items() if found <= batched}  # every test of it traced and batched
        found: dict[str, dict[str, tuple[ItemTrace, TestOutcome]]] = {}
        broken: set[str] = set()
        lost, rounds, held = 0.0, 0, 0
        reads = _Reads()
        pending = list(self.batches(keys))
        while pending and lost <= INCONCLUSIVE_SECONDS and rounds < INCONCLUSIVE_ROUNDS:
            started = time.monotonic()  # a round's imports and worker start count if it says nothing
            ready = [b for b in pending if b.exercise not in broken and submission.can_batch(b.exercise, b.modules)]
            broken.update(b.exercise for b in pending if b not in ready)
            if not ready:
                break
            pending = []
            ready, messages = self.messages(ready)
            answers = submission.send_batches(messages)
            self.crossings += len(messages)
            for i, batch in enumerate(ready):
                got, seconds, size = next(answers, (None, 0.0, 0))
                if got is None:  # this batch said nothing; the worker is lost: the rest go again, to a new one
                    lost += time.monotonic() - started
                    rounds += 1
                    broken.add(batch.exercise)
                    pending = [b for b in ready[i + 1 :] if b.exercise != batch.exercise]
                    break
                submission.state(batch.exercise).spent += seconds
                got = reads.as_read(batch, got)
                held += size
                self._judge(batch, got, found, whole, result, submission, keep=held <= PREFETCH_BYTES)
                started = time.monotonic()
        broken.update(b.exercise for b in pending)
        submission.observe_batches(result.raised)
        if held > PREFETCH_BYTES:
            # Some tests have no replies kept to read: they ask again, of a new worker (one that has seen
            # no batch), so that what they are answered is all that counts.
            result.fresh = True
        for exercise in whole - broken:
            result.agreed.update(found.get(exercise, {}))
        for key in result.agreed:
            result.prefetched.pop(key, None)
        for key in [k for k, t in ((k, self.traces.get(k)) for k in result.prefetched) if t.function in broken]:
            del result.prefetched[key]
        return result

    def _judge(
        self,
        batch: Batch,
        got: list[dict],
        found: dict,
        whole: set[str],
        result: BatchFindings,
        submission: Submission,
        keep: bool,
    ) -> None:
        """Which of ``batch``'s tests agree with a recorded run, given its replies ``got``; ``keep``: keep
        the replies for its tests to read (else, past PREFETCH_BYTES, they ask again)."""
        at, seen = 0, []
        for trace in batch.traces:
            n = len(trace.replies)
            mine = got[at : at + n]
            run = next(
                ((t, o) for t in [trace, *self.others.get(trace.key, ())] if (o := t.agrees(mine)) is not None),
                None,
            )
            if run is not None:
                found.setdefault(batch.exercise, {})[trace.key] = run
                seen += mine[: len(run[0].replies)]  # what the test itself would have read
            else:
                whole.discard(batch.exercise)
            # What the test may read instead of asking again, up to a request the batch did not run.
            pairs = list(zip(trace.requests, mine))
            skipped = next((i for i, (_, reply) in enumerate(pairs) if reply.get("kind") == "skipped"), len(pairs))
            if keep:
                result.prefetched[trace.key] = pairs[:skipped]
            at += n
        if batch.exercise in whole:
            submission.learn_from_batch(batch.exercise, seen)
        if any(reply.get("kind") == "raised" for reply in got):
            result.raised.append(batch.exercise)

    def messages(self, batches: list[Batch]) -> tuple[list[Batch], list[BatchMessage]]:
        """``batches`` as the worker is sent them: (the batches in the order it answers them, the ``batches``
        requests, each built once per session).

        One request per exercise (its batches are consecutive): while student code answers it, no input
        of another exercise is in the worker. The exercises that send no input (module-level values read
        by name, ``get``: the concept questions) share one request, where the first of them comes: their
        requests name answers every student's file already has, and hand student code nothing.
        """
        groups: list[list[Batch]] = []
        reads: list[Batch] | None = None
        for _, unit in itertools.groupby(batches, key=lambda b: b.exercise):
            unit = list(unit)
            if not _reads_only(unit):
                groups.append(unit)
            elif reads is None:
                reads = unit
                groups.append(reads)
            else:
                reads += unit
        found = []
        for group in groups:
            key = tuple(id(b) for b in group)
            if key not in self._messages:
                frame = runtime.frame({"op": "batches", "batches": [b.request for b in group]})
                self._messages[key] = BatchMessage(frame, tuple((b.exercise, b.count, b.cutoff) for b in group))
            found.append(self._messages[key])
        return [b for group in groups for b in group], found


@dataclass
class BatchFindings:
    """What the batches found (:meth:`BatchRunner.run`)."""

    # The tests that end as a recorded run ended: their run and outcome (whole exercises only).
    agreed: dict[str, tuple[ItemTrace, TestOutcome]] = field(default_factory=dict)
    # The other tests' requests and the replies their batch gave, in order (tests still run them).
    prefetched: dict[str, list[tuple[dict, dict]]] = field(default_factory=dict)
    raised: list[str] = field(default_factory=list)  # the exercises whose batch had an error in it
    fresh: bool = False  # the tests must ask a new worker (not all replies could be kept for them)


class _Reads:
    """A submission's reads of module-level values, as the tests make them: a ``get`` with no student code
    run since the same name was read (no call, no import of a module yet unseen) is answered by that first
    read (grader.core.submission.Submission._read); a batch asks every time, and a module ``__getattr__``
    could answer each time otherwise."""

    def __init__(self):
        self.read: dict[tuple, dict] = {}
        self.modules: set[str] = set()

    def as_read(self, batch: Batch, got: list[dict]) -> list[dict]:
        answered = []
        for request, reply in zip(batch.request["requests"], got):
            if reply.get("kind") == "skipped":  # never asked by the test: changes nothing
                answered.append(reply)
                continue
            if request.get("module") not in self.modules:  # the test's first request there imports it
                self.modules.add(request.get("module"))
                self.read = {}
            if request.get("op") != "get":
                self.read = {}  # student code runs
                answered.append(reply)
                continue
            key = (request.get("module"), request.get("name"))
            if key in self.read:
                reply = self.read[key]
            elif reply.get("ok"):
                self.read[key] = reply
            answered.append(reply)
        return answered


def _reads_only(batches: list[Batch]) -> bool:
    """Do ``batches`` only read module-level values (no input of any kind crosses with them)?"""
    return all(r.get("op") == "get" for b in batches for r in b.request["requests"])


def _prefix(requests: list[dict], of: list[dict]) -> bool:
    return len(requests) <= len(of) and all(identical(a, b) for a, b in zip(requests, of))


def _batch(exercise: str, traces: list[ItemTrace]) -> Batch:
    # Each request says which test it is of: the worker skips the rest of a test after a NotImplementedError.
    requests = [dict(r, test=i) for i, t in enumerate(traces) for r in t.requests]
    return Batch(
        exercise,
        traces,
        {"op": "batch", "requests": requests},
        sorted({m for t in traces for m in t.modules}),
        len(requests),
        max(MIN_CUTOFF, CUTOFF_FACTOR * sum(t.seconds for t in traces)),
    )


# -- a test's replies: taped, or read from its batch -------------------------------------------------
class Tape(ReplySource):
    """Ask the worker and keep every crossing (a test's run on the reference or the stubs, traced)."""

    reads_kept = False  # each test's crossings stand on their own

    def __init__(self):
        self.crossings: list[Crossing] = []

    def crossed(self, crossing: Crossing) -> None:
        self.crossings.append(crossing)


class Recorded(ReplySource):
    """The replies a test's batch gave, read in order for as long as the test asks exactly what the batch
    asked; from its first other request on, the worker's (and no read kept meanwhile: the batch kept none)."""

    reads_kept = False

    def __init__(self, pairs: list[tuple[dict, dict]]):
        self.pairs = collections.deque(pairs)

    def answer(self, request: dict) -> dict | None:
        if self.pairs and self.pairs[0][0] == request:
            return self.pairs.popleft()[1]
        self.pairs.clear()  # the test asks what its batch did not: from here on, it asks the worker
        return None


# -- the traces on disk -------------------------------------------------------------------------
def trace_file(function: str, fingerprint: str, run: str = "reference") -> Path | None:
    """Where the traces of ``function``'s tests on ``run`` (the reference, the stubs) under the course
    ``fingerprint`` are kept (None: no cache). The cases property tests draw depend on hypothesis's
    version too (the course fingerprint has Python's and numpy's)."""
    return cache.current().entry(
        "traces", f"{function}-{run}", function, run, fingerprint, f"hypothesis {hypothesis.__version__}"
    )


def store_traces(traces: list[ItemTrace], path: Path | None) -> bool:
    """Write ``traces`` (all of one function's, maybe none) atomically; False when they cannot be."""
    try:
        data = {"items": [t.to_json() for t in traces]}
    except runtime.UnsupportedValue:
        return False
    return cache.GraderCache.write(path, data)


def load_traces(path: Path | None) -> list[ItemTrace] | None:
    """The traces stored at ``path``, or None (absent, damaged, or of another form)."""
    data = cache.GraderCache.read(path)
    try:
        return [ItemTrace.from_json(t) for t in data["items"]]
    except (ValueError, KeyError, TypeError, AttributeError, runtime.WireError):
        return None


# -- the owner ------------------------------------------------------------------------------------
class ReplayPlugin:
    """The hidden tests' replay in one grading session: the traces, the taping and the batches' replies.

    Registered in the session's pytest run beside ``grading`` (the GradingPlugin whose submission
    ``sid`` is graded in turn). For each submission, the engine asks :meth:`prepare` (the traces of its
    tests: read from the cache, else, from the session's second submission on, recorded) and then,
    once the submission is bound, :meth:`replay` (the batches: which tests end as recorded). Its hooks
    set a test's reply source: a :class:`Tape` while it records, a :class:`Recorded` for a test whose
    batch already answered it.

    Parameters
    ----------
    reply_limit : the worker's reply limit (course.yaml ``sandbox.reply_kb``): a batch stays under it.
    scratch : a folder of the session's own (the reference and stubs are staged there to record).
    forget_workers : called after recording: the workers that ended meanwhile are no one's.
    """

    RUNS = ("reference", "stubs")

    def __init__(
        self,
        grading: GradingPlugin,
        sid: str,
        *,
        reply_limit: int,
        scratch: Path,
        forget_workers: Callable[[], object] = lambda: None,
    ):
        self.grading = grading
        self.course = grading.course
        self.sid = sid
        self.reply_limit = reply_limit
        self.scratch = scratch
        self.forget_workers = forget_workers
        self.by_function: dict[str, dict[str, list[ItemTrace]]] = {}  # function -> run -> traces
        self.submissions = 0  # graded so far in this session
        self.fingerprint: str | None = None
        self.runner: BatchRunner | None = None
        self.taping = False
        self._tapes: dict[str, Tape] = {}  # by node id, while taping
        self._taped: dict[str, list[ItemTrace]] = {}  # by function, while taping
        self.prefetched: dict[str, list[tuple[dict, dict]]] = {}  # by node id: what a test reads first

    # -- one submission -------------------------------------------------------------------------
    def prepare(self, items: list, session) -> bool:
        """Read (or record) the traces of ``items``' tests; whether any of them can be replayed.

        A session records only from its second submission on: grading one submission, recording
        would cost as much as it saves. Recording binds the grading plugin to the reference and the
        stubs: the caller binds the submission after this.
        """
        course = self.course
        functions = [f for f in dict.fromkeys(function_of(i) for i in items) if course.exercise(f).kind != "lab"]
        missing = [f for f in functions if f not in self.by_function]
        if missing and self.fingerprint is None:
            self.fingerprint = course_fingerprint(course)
        for function in missing:
            runs = {run: load_traces(trace_file(function, self.fingerprint, run)) for run in self.RUNS}
            if all(found is not None for found in runs.values()):
                self.by_function[function] = runs
                self.runner = None
        missing = [f for f in missing if f not in self.by_function]
        if missing and self.submissions >= 1:
            self._record(missing, session)
        if not any(self.by_function.get(f, {}).get("reference") for f in functions):
            return False
        if self.runner is None:
            every = [t for runs in self.by_function.values() for t in runs["reference"]]
            others: dict[str, list[ItemTrace]] = {}
            for runs in self.by_function.values():
                for trace in runs["stubs"]:
                    others.setdefault(trace.key, []).append(trace)
            self.runner = BatchRunner({t.key: t for t in every}, self.reply_limit, others)
        return True

    def replay(self, items: list) -> set[str]:
        """Replay ``items`` on the bound submission (after :meth:`prepare` said it can): record the tests
        that agree, and leave the others their batch's replies to read; the node ids of those that agreed."""
        submission = self.grading.open_submission(self.sid)
        found = self.runner.run(submission, {i.nodeid: function_of(i) for i in items})
        self.prefetched = found.prefetched
        if found.fresh:
            submission.lose_worker()
        # Whole exercises agree or none of their tests does: recorded first, each function's in order.
        for item in items:
            if item.nodeid in found.agreed:
                trace, outcome = found.agreed[item.nodeid]
                self.grading.record(
                    self.sid, trace.function, outcome, trace.calls, trace.relation, trace.claims, trace.sizes
                )
        return set(found.agreed)

    def end_submission(self) -> None:
        """The submission is graded: nothing of its replies is kept for the next."""
        self.prefetched = {}
        self.submissions += 1

    # -- recording the traces ------------------------------------------------------------------------
    def _record(self, functions: list[str], session) -> None:
        """Run the reference solutions and the stubs through the tests of ``functions``, keeping each
        test's crossings; store the traces."""
        course = self.course
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
                store_traces(found.get(function, []), trace_file(function, self.fingerprint, run))
        self.runner = None

    def _run(self, source: Path, functions: list[str], session) -> dict[str, list[ItemTrace]] | None:
        """The traces of one run of ``source`` through the tests of ``functions``, by function."""
        staged_at = self.scratch / "traced"
        if staged_at.exists():
            shutil.rmtree(staged_at)
        staged = stage_submission(self.course, source, staged_at)
        items = [item for item in session.items if function_of(item) in functions]
        self.grading.reset(self.sid, staged, functions)
        self.taping, self._taped = True, {}
        try:
            for i, item in enumerate(items):
                session.config.hook.pytest_runtest_protocol(
                    item=item, nextitem=items[i + 1] if i + 1 < len(items) else None
                )
        finally:
            self.taping, self._tapes = False, {}
        taped, self._taped = self._taped, {}
        self.forget_workers()
        state = self.grading.states[self.sid]
        if state.infrastructure_error is not None:
            return None
        # A function the run could not finish (a time limit on a slow machine, a crash) has outcomes that
        # come from that, not from its replies: none of its tests is traced.
        stopped = {f for f, r in (state.result.functions.items() if state.result else ()) if r.error_kind}
        return {f: taped.get(f, []) for f in functions if f not in stopped}

    # -- hooks ------------------------------------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        state = self.grading.state_of(item)
        submission = state.submission if state is not None else None
        source: ReplySource | None = None
        if submission is not None:
            if self.taping:
                source = self._tapes[item.nodeid] = Tape()
            elif item.nodeid in self.prefetched:
                source = Recorded(self.prefetched.pop(item.nodeid))
        if source is not None:
            submission.source = source
        try:
            yield
        finally:
            if source is not None:
                submission.source = WORKER

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item):
        """A taped test has run (its outcome reported): keep its trace."""
        tape = self._tapes.pop(item.nodeid, None)
        reported = item.stash.get(REPORTED, None)
        if tape is None or reported is None:
            return
        # A copy: the submission's diagnosis may rewrite the outcome it keeps.
        outcome = TestOutcome.from_json(reported.outcome.to_json())
        flags = (reported.relation, reported.claims)
        trace = trace_of(item.nodeid, reported.function, outcome, tape.crossings, reported.calls, flags)
        if trace is not None:
            self._taped.setdefault(reported.function, []).append(trace)
