"""Grade a lab by replaying the reference training's calls, in a few large crossings.

A lab's training loop is deterministic given its seed and the answers of the
student's functions: the loop's own weights, optimiser, environment and random
draws are the grader's. So when the student's functions give, on every call of the
reference training, the reference's answers (within the exercise's tolerance), the
training with the student's functions *is* the reference's training, up to rounding,
and earns its verdict.

- :func:`reference_record` runs the reference training once per process (and lab,
  seed, profile), with :class:`TrainingRecorder` standing for the student's functions: it
  keeps the inputs and the answer of every call, grouped by function and shape.
- :func:`replay_training` sends those inputs to the student's functions in a few large
  calls (``impl.f.map``: one crossing per group and chunk, results stacked), and
  compares every answer with the reference's. The first call that differs (or raises,
  returns something unreadable) ends the replay, leaving the lab's budget as it was;
  the hidden test then trains with the student's functions as before, and the
  training's own checks, cross-check and verdict decide, exactly as without a replay.
  A time-out is final (the lab is unavailable, as the training's own calls would make
  it: one by one, the same calls take at least as long).

Calls of one function are replayed in the order the training made them within a group
of one shape; the groups, and the calls of different functions, are not interleaved as
in the training. A pure function cannot tell; the labs' functions are pure by contract.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from grader.core import cache
from grader.core.fingerprint import course_fingerprint
from grader.core.submission import (  # reply_limit_of: the labs' tests size the crossings with it
    FunctionUnavailable,
    Record,
    StudentError,
    UnsupportedReturn,
    reply_limit_of,
    wire,
)
from grader.worker import runtime

# A chunk's reply stays under this fraction of the worker's reply limit (course.yaml sandbox.reply_kb),
# so that an honest answer is never refused for its size.
REPLY_SHARE = 0.5
DEFAULT_REPLY_BYTES = 1024 * 1024


@dataclass
class Group:
    """The calls of one function with one shape of inputs, in the training's order."""

    function: str
    args: list  # stacked arrays (indices in rows) and constants
    rows: list[int]
    kwargs: dict
    calls: list[int]  # each row's index among the function's calls (1-based, as the cross-check counts)
    order: list[int]  # each row's index among all the training's calls: which call came first
    expected: Any  # the reference's results, stacked as runtime.encode_stacked sends them
    row_bytes: int  # encoded size of one row's result

    @property
    def count(self) -> int:
        return len(self.calls)

    def to_json(self) -> dict:
        """Plain data, by field name (values in the wire format); raises UnsupportedValue."""
        return {
            "function": self.function,
            "args": runtime.encode(list(self.args)),
            "rows": list(self.rows),
            "kwargs": runtime.encode(dict(self.kwargs)),
            "calls": list(self.calls),
            "order": list(self.order),
            "expected": wire(self.expected),
            "row_bytes": self.row_bytes,
        }

    @classmethod
    def from_json(cls, data: dict) -> Group:
        return cls(
            function=str(data["function"]),
            args=runtime.decode(data["args"]),
            rows=[int(r) for r in data["rows"]],
            kwargs=runtime.decode(data["kwargs"]),
            calls=[int(c) for c in data["calls"]],
            order=[int(o) for o in data["order"]],
            expected=runtime.decode(data["expected"], Record),
            row_bytes=int(data["row_bytes"]),
        )


@dataclass
class LabRecord:
    """What the reference training asked and what it earned."""

    groups: list[Group]
    outcome: Any  # what the hidden test computed from the reference training (its verdict's inputs)
    calls: dict[str, int] = field(default_factory=dict)  # calls per function

    def to_json(self) -> dict:
        """Plain data, by field name (values in the wire format); raises UnsupportedValue."""
        return {
            "groups": [g.to_json() for g in self.groups],
            "outcome": runtime.encode(self.outcome),
            "calls": dict(self.calls),
        }

    @classmethod
    def from_json(cls, data: dict) -> LabRecord:
        return cls(
            groups=[Group.from_json(g) for g in data["groups"]],
            outcome=runtime.decode(data["outcome"]),
            calls={str(k): int(v) for k, v in data["calls"].items()},
        )


@dataclass
class TrainingReplay:
    """How a replay of the reference training went: ``agrees``, else where it first differed (``function``, ``call``, ``reason``)."""

    agrees: bool
    crossings: int = 0
    calls: int = 0
    function: str = ""
    call: int = 0
    reason: str = ""
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    got: Any = None
    want: Any = None
    order: list = field(default_factory=list, repr=False)  # the group's order of calls, and this call's row
    call_row: int = 0

    def where(self) -> str:
        """Where the replay stopped, in words (no expected value)."""
        return f"{self.function} (its call {self.call:,} in the reference training): {self.reason}"


class TrainingRecorder:
    """The reference functions, remembering every call's inputs and answer in order."""

    def __init__(self, reference: Callable[[str], Callable], names):
        self._reference = reference
        self.calls: dict[str, list] = {name: [] for name in names}
        self._made = 0

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.calls:
            raise AttributeError(name)
        function, calls = self._reference(name), self.calls[name]

        def call(*args, **kwargs):
            result = function(*args, **kwargs)
            calls.append((_copy(args), _copy(kwargs), result, self._made))
            self._made += 1
            return result

        call.__name__ = name
        return call

    def groups(self) -> list[Group]:
        """Every recorded call, grouped by function and by the shapes and constants of its inputs."""
        groups = []
        for name, calls in self.calls.items():
            by_key: dict = {}
            for number, (args, kwargs, result, order) in enumerate(calls, start=1):
                key = (tuple(_signature(a) for a in args), tuple(sorted((k, _signature(v)) for k, v in kwargs.items())))
                by_key.setdefault(key, []).append((number, args, kwargs, result, order))
            for members in by_key.values():
                first_args, first_kwargs = members[0][1], members[0][2]
                rows = [j for j, a in enumerate(first_args) if isinstance(a, np.ndarray)]
                args = [np.stack([m[1][j] for m in members]) if j in rows else a for j, a in enumerate(first_args)]
                encoded = runtime.encode_stacked([m[3] for m in members])
                expected = runtime.decode(encoded, Record)
                row_bytes = len(runtime.frame(encoded)) // len(members) + 1
                groups.append(
                    Group(
                        function=name,
                        args=args,
                        rows=rows,
                        kwargs=dict(first_kwargs),
                        calls=[m[0] for m in members],
                        order=[m[4] for m in members],
                        expected=expected,
                        row_bytes=row_bytes,
                    )
                )
        return sorted(groups, key=lambda g: g.order[0])


def _copy(value):
    return (
        tuple(_copy(v) for v in value)
        if isinstance(value, tuple)
        else (
            {k: _copy(v) for k, v in value.items()}
            if isinstance(value, dict)
            else (value.copy() if isinstance(value, np.ndarray) else value)
        )
    )


def _signature(value):
    """What must be equal for calls to share a group: an array's shape and dtype, any other value itself."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    return ("value", repr(value))


_RECORDS: dict = {}
_FINGERPRINTS: dict = {}


def reference_record(
    key, reference: Callable[[str], Callable], names, train: Callable[[Any], Any], course=None
) -> LabRecord:
    """The record of the reference training ``train(functions)``, made once per process and ``key``.

    ``key`` must name everything the training depends on besides the course (lab, seed,
    profile); ``train`` gets the functions to call and returns what the hidden test
    needs for its verdict.

    With ``course``, the record is also kept on disk (:func:`record_cache_file`: the
    grader's cache directory, keyed by ``key`` and the course fingerprint, which covers
    the course's files, the grading code and the Python and numpy versions), so that
    every grading process of a class, and every test run, after the first reads it
    instead of training the reference again. It is plain data in the wire format (no
    pickle), written atomically; an entry that cannot be read is made again.
    """
    fingerprint = None
    if course is not None:
        root = str(course.root)
        if root not in _FINGERPRINTS:
            _FINGERPRINTS[root] = course_fingerprint(course)
        fingerprint = _FINGERPRINTS[root]
    memory_key = (key, fingerprint)
    if memory_key not in _RECORDS:
        cache = record_cache_file(key, fingerprint) if fingerprint else None
        record = load_record(cache) if cache is not None else None
        if record is None:
            recorder = TrainingRecorder(reference, names)
            outcome = train(recorder)
            record = LabRecord(
                groups=recorder.groups(), outcome=outcome, calls={n: len(c) for n, c in recorder.calls.items()}
            )
            if cache is not None:
                store_record(record, cache)
        _RECORDS[memory_key] = record
    return _RECORDS[memory_key]


def record_cache_file(key, fingerprint: str) -> Path | None:
    """Where the record of ``key`` under the course ``fingerprint`` is kept (None: no disk cache): an entry
    ``labs`` of the process's cache (:mod:`grader.core.cache`)."""
    name = str(key[0]) if isinstance(key, tuple) and key else "lab"
    # This module is grading code too (the course fingerprint has it as well); said twice is harmless.
    return cache.current().entry("labs", name, repr(key), fingerprint, Path(__file__).read_bytes())


def store_record(record: LabRecord, path: Path | None) -> bool:
    """Write ``record`` to ``path`` atomically; False when it cannot be (the cache only saves time)."""
    try:
        data = record.to_json()
    except runtime.UnsupportedValue:
        return False
    return cache.GraderCache.write(path, data)


def load_record(path: Path | None) -> LabRecord | None:
    """The record stored at ``path``, or None (absent, damaged, or of another form)."""
    data = cache.GraderCache.read(path)
    try:
        return LabRecord.from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError, runtime.WireError):
        return None


def replay_training(
    student, record: LabRecord, tolerance: dict, reply_bytes: int = DEFAULT_REPLY_BYTES
) -> TrainingReplay:
    """Ask ``student``'s functions every recorded call, in chunks; compare with the reference.

    The replay stops at the first call that fails (raises, times out, returns what cannot
    be read or compared). An answer that differs does not stop it at once: the groups
    not yet replayed may hold an earlier call of the training that differs too, and the
    one reported is the earliest (chunks that start after it are skipped).

    Parameters
    ----------
    student : Implementation
        Charged to the lab (``impl.charged_to(lab)``); its failures here are tentative.
    tolerance : dict
        ``rtol`` and ``atol`` of ``numpy.isclose``: the exercise's tolerance.
    reply_bytes : int
        The worker's reply limit; chunks are sized to stay well under it.
    """
    outcome, first = TrainingReplay(agrees=True), None
    for group in record.groups:
        size = max(1, int(reply_bytes * REPLY_SHARE) // group.row_bytes)
        for start in range(0, group.count, size):
            if first is not None and group.order[start] > first.order[first.call_row]:
                break
            stop = min(start + size, group.count)
            args = [a[start:stop] if j in group.rows else a for j, a in enumerate(group.args)]
            outcome.crossings += 1
            try:
                got = getattr(student, group.function).map(args, group.rows, stop - start, group.kwargs, tentative=True)
            except (StudentError, FunctionUnavailable, UnsupportedReturn) as problem:
                return first_of(first, _differs(outcome, group, start, "it failed when called: " + _failure(problem)))
            want = _rows(group.expected, start, stop)
            agree = agreeing_rows(got, want, stop - start, tolerance)
            if agree is None:
                return first_of(
                    first, _differs(outcome, group, start, "its results are not shaped like the reference's")
                )
            outcome.calls += stop - start
            if not agree.all():
                bad = start + int(np.flatnonzero(~agree)[0])
                first = first_of(
                    first,
                    _differs(
                        outcome,
                        group,
                        bad,
                        "its answer differs from the reference's",
                        got=_rows(got, bad - start, bad - start + 1, single=True),
                        want=_rows(group.expected, bad, bad + 1, single=True),
                    ),
                )
                break
    return first_of(first, outcome)


def first_of(found: TrainingReplay | None, other: TrainingReplay) -> TrainingReplay:
    """Of two findings, the one about the earlier call of the training (counts from the latest)."""
    if found is None or other.agrees:
        return dataclasses.replace(found, crossings=other.crossings, calls=other.calls) if found else other
    if found.order[found.call_row] <= other.order[other.call_row]:
        return dataclasses.replace(found, crossings=other.crossings, calls=other.calls)
    return other


def _failure(problem: Exception) -> str:
    return problem.describe() if isinstance(problem, StudentError) else str(problem)


def _differs(outcome: TrainingReplay, group: Group, row: int, reason: str, got=None, want=None) -> TrainingReplay:
    args = tuple(a[row] if j in group.rows else a for j, a in enumerate(group.args))
    return dataclasses.replace(
        outcome,
        agrees=False,
        function=group.function,
        call=group.calls[row],
        reason=reason,
        args=args,
        kwargs=dict(group.kwargs),
        got=got,
        want=want,
        order=group.order,
        call_row=row,
    )


def _rows(tree, start: int, stop: int, single: bool = False):
    """Rows ``start:stop`` of every leaf of a stacked tree (``single``: row ``start`` itself)."""
    if isinstance(tree, np.ndarray):
        return tree[start] if single else tree[start:stop]
    if isinstance(tree, tuple):
        return tuple(_rows(t, start, stop, single) for t in tree)
    if isinstance(tree, list):
        return [_rows(t, start, stop, single) for t in tree]
    if isinstance(tree, dict):
        return {k: _rows(v, start, stop, single) for k, v in tree.items()}
    if isinstance(tree, Record):
        return Record(tree.type_name, {k: _rows(v, start, stop, single) for k, v in tree.fields.items()})
    return tree


def agreeing_rows(got, want, count: int, tolerance: dict) -> np.ndarray | None:
    """Per call, whether ``got`` agrees with ``want`` (both stacked); None when their structures differ.

    Structures are those the training accepts: a tuple or a list where the reference
    has either, a record with at least the reference record's fields, a dict with its
    keys, and arrays of its shapes. Values agree within ``tolerance``; NaN never agrees.
    """
    if isinstance(want, np.ndarray):
        if (
            not isinstance(got, np.ndarray)
            or got.shape != want.shape
            or got.shape[:1] != (count,)
            or got.dtype.kind not in "biuf"
        ):  # complex or text: not what the training reads as real
            return None
        try:
            g, w = got.astype(float), want.astype(float)
        except (TypeError, ValueError):
            return None
        close = np.isclose(g, w, **tolerance)
        return close.reshape(count, -1).all(axis=1) if close.ndim > 1 else close
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return None
        parts = [agreeing_rows(g, w, count, tolerance) for g, w in zip(got, want)]
    elif isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return None
        parts = [agreeing_rows(got[k], w, count, tolerance) for k, w in want.items()]
    elif isinstance(want, Record):
        if not isinstance(got, Record) or not set(want.fields) <= set(got.fields):
            return None
        parts = [agreeing_rows(got.fields[k], w, count, tolerance) for k, w in want.fields.items()]
    else:
        return None
    if any(p is None for p in parts):
        return None
    return np.logical_and.reduce(parts) if parts else np.ones(count, dtype=bool)


__all__ = [
    "Group",
    "LabRecord",
    "TrainingRecorder",
    "TrainingReplay",
    "agreeing_rows",
    "load_record",
    "record_cache_file",
    "reference_record",
    "replay_training",
    "reply_limit_of",
    "store_record",
]
