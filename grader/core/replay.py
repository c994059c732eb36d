"""Grade the hidden tests a submission answers exactly as the reference does, in a few crossings.

A hidden test is deterministic: its inputs are fixed or drawn from a seeded, cached
stream (``grader.testing``), and what it asks next, and its verdict, depend only on
what the student's functions answered. So when a submission's worker gives, to every
request one test of the reference made, a reply identical to the reference's, the test
would ask the same things and pass as it passed for the reference; running it again
would only repeat the same crossings one at a time.

- :func:`trace_of` keeps one reference run of a test (its :class:`ItemTrace`): the
  requests it sent, the replies it got, its outcome and the first calls kept as
  evidence. A test is traced only when every crossing it made is a ``call``, ``map`` or
  ``get`` charged to its own exercise, answered with a value or an error, and it passed.
- :class:`Replayer` sends an exercise's traced requests to a submission's worker in
  a few ``batch`` crossings (frames built once per session) and compares every reply with
  the reference's (:func:`same_reply`): identical values, bit for bit and type for type;
  an error of the same type (its text is the student's, and no test judges it). The tests
  whose replies are all identical pass as the reference's did; from an exercise's first
  test that differs on, its tests run as always. A batch that says nothing (a time-out
  past its cutoff, a crash, a reply the protocol refuses) charges nothing: the tests then
  run as always, and decide.

The traces live with the course in the grader's cache directory (as the labs' records,
:mod:`grader.core.labreplay`): plain data in the wire format, keyed by the course
fingerprint (the course's files, its tests included, the grading code, Python and numpy).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import hypothesis

from grader.core.diagnosis import PASSED_PER_TEST, Call, Raised, call_bytes
from grader.core.results import TestOutcome
from grader.core.submission import Crossing, Record, Submission, wire
from grader.testing import cache_directory, cache_write
from grader.worker import replies, runtime

TRACE_FORMAT = 2
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


@dataclass
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
    size = (len(text), text.count("[") + text.count("{"), text.count(","))
    calls = list(observed or [])
    quoted = "" if outcome.passed else _quoted(outcome.message, [c.reply for c in tape])
    return ItemTrace(
        key,
        function,
        outcome,
        [c.request for c in tape],
        [c.reply for c in tape],
        sum(c.seconds for c in tape),
        calls[:PASSED_PER_TEST] if outcome.passed else calls,
        size,
        *flags,
        quoted,
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


# -- replaying ----------------------------------------------------------------------------------
@dataclass
class Batch:
    """Consecutive traced tests of one exercise, sent in one crossing."""

    exercise: str
    traces: list[ItemTrace]
    request: dict  # the ``batch`` request (sent within a ``batches`` request's frame)
    modules: list[str]
    count: int
    cutoff: float


class Replayer:
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
        self._frames: dict[tuple[int, ...], bytes] = {}
        self.crossings = 0  # requests sent (for benchmarks)

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

    def run(self, submission: Submission, keys: dict[str, str]) -> Replayed:
        """Replay the traced tests among ``keys`` (node id -> its exercise, every test to run) on
        ``submission``, exercise by exercise.

        An exercise whose every test among ``keys`` is traced and agrees with a recorded run ends
        there: its tests end as those runs ended (:attr:`Replayed.agreed`). The others' tests run as
        tests, but each reads the replies its batch already gave, in order, for as long as it asks
        what the batch asked (:attr:`Replayed.prefetched`): a submission answers each hidden input
        once, whatever it can tell of a batch. A conclusive batch's time is charged to its exercise.
        A batch that says nothing (past its cutoff, a crash, a reply of its own) charges nothing and
        leaves its exercise's tests to ask afresh (a new worker); after INCONCLUSIVE_SECONDS of those
        in a submission, no more batches are sent.
        """
        result = Replayed()
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
            ready = [b for b in pending if b.exercise not in broken and submission.replayable(b.exercise, b.modules)]
            broken.update(b.exercise for b in pending if b not in ready)
            if not ready:
                break
            pending = []
            answers = submission.replay([(b.exercise, b.count, b.cutoff) for b in ready], self._frame(ready))
            self.crossings += 1
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
        submission.observe_replayed(result.raised)
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
        self, batch: Batch, got: list[dict], found: dict, whole: set[str], result: Replayed, submission, keep: bool
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
            submission.replayed(batch.exercise, seen)
        if any(reply.get("kind") == "raised" for reply in got):
            result.raised.append(batch.exercise)

    def _frame(self, batches: list[Batch]) -> bytes:
        """The ``batches`` request of ``batches``: built once for a plan's whole list (the usual one), afresh
        for what is left after a batch that said nothing."""
        key = tuple(id(b) for b in batches)
        if key in self._frames:
            return self._frames[key]
        frame = runtime.frame({"op": "batches", "batches": [b.request for b in batches]})
        if any(key == tuple(id(b) for b in planned) for planned in self._batches.values()):
            self._frames[key] = frame
        return frame


@dataclass
class Replayed:
    """What a replay found (:meth:`Replayer.run`)."""

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


# -- the traces on disk -------------------------------------------------------------------------
def trace_file(function: str, fingerprint: str, run: str = "reference") -> Path | None:
    """Where the traces of ``function``'s tests on ``run`` (the reference, the stubs) under the course
    ``fingerprint`` are kept (None: no cache)."""
    base = cache_directory()
    if base is None:
        return None
    # The cases property tests draw depend on hypothesis's version too (the course fingerprint has Python's and numpy's).
    key = f"{TRACE_FORMAT}\0{function}\0{run}\0{fingerprint}\0hypothesis {hypothesis.__version__}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return base / "replay" / f"{''.join(c for c in function if c.isalnum() or c in '_-')}-{run}-{digest}.json"


def store_traces(traces: list[ItemTrace], path: Path) -> bool:
    """Write ``traces`` (all of one function's, maybe none) atomically; False when they cannot be."""
    try:
        data = {
            "format": TRACE_FORMAT,
            "items": [
                {
                    "key": t.key,
                    "function": t.function,
                    "outcome": t.outcome.to_json(),
                    "relation": t.relation,
                    "claims": t.claims,
                    "quoted": t.quoted,
                    "requests": t.requests,
                    "replies": t.replies,
                    "seconds": t.seconds,
                    "size": list(t.size),
                    "calls": [
                        {
                            "args": runtime.encode(list(c.args)),
                            "kwargs": runtime.encode(dict(c.kwargs)),
                            "raised": c.outcome.error_type if isinstance(c.outcome, Raised) else None,
                            "outcome": None if isinstance(c.outcome, Raised) else wire(c.outcome),
                            "readonly": c.readonly,
                        }
                        for c in t.calls
                    ],
                }
                for t in traces
            ],
        }
    except runtime.UnsupportedValue:
        return False
    return cache_write(path, data)


def load_traces(path: Path) -> list[ItemTrace] | None:
    """The traces stored at ``path``, or None (absent, damaged, or of another format)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != TRACE_FORMAT:
            return None
        return [
            ItemTrace(
                str(t["key"]),
                str(t["function"]),
                TestOutcome.from_json(t["outcome"]),
                list(t["requests"]),
                list(t["replies"]),
                float(t["seconds"]),
                [
                    Call(
                        tuple(runtime.decode(c["args"])),
                        runtime.decode(c["kwargs"]),
                        Raised(c["raised"]) if c["raised"] is not None else runtime.decode(c["outcome"], Record),
                        bool(c["readonly"]),
                    )
                    for c in t["calls"]
                ],
                tuple(int(n) for n in t["size"]),
                bool(t["relation"]),
                bool(t["claims"]),
                None if t["quoted"] is None else str(t["quoted"]),
            )
            for t in data["items"]
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, runtime.WireError):
        return None
