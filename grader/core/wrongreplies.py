"""A compact digest of a submission's wrong replies to the hidden inputs, for instructors only.

Two students whose *wrong* answers to the same hidden inputs agree bit for bit, where the rest of
the class's wrong answers differ, is evidence that no comparison of code text gives
(``grader similarity``). The grade record keeps, per function, at most :data:`PER_FUNCTION`
entries ``"<input>:<answer>"``: a hash of a hidden input the function answered wrongly (a value
unlike the reference's, within the exercise's tolerance) and a hash of that wrong value. A right
answer is never kept, nor an exception (a type name is too coarse to be evidence), nor an input
of a test that passed.

Computed once, where the calls of the failed tests are still at hand (the pytest plugin, when a
submission's result is built); kept in the record beside the result, never inside it: what a
student reads (feedback, Gradescope's results.json, ``grader grade --json``) is made from the
result and never carries it.
"""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Any

import numpy as np

from grader.core.course import Course
from grader.core.diagnosis import Answers, Call, Raised, quiet, wrong_calls

PER_FUNCTION = 16  # entries kept per function: the ones of the smallest input hashes (the same for two alike)
CHECKED = 64  # failed calls compared with the reference per function, at most
DIGITS = 12  # hex digits per hash (48 bits)
MAX_DEPTH = 30


def _feed(h, value: Any, depth: int = 0) -> None:
    """Feed ``value`` (decoded plain data) to the hash ``h`` unambiguously: type tags, lengths, exact bits."""
    if depth > MAX_DEPTH:
        h.update(b"?")
        return
    if isinstance(value, np.ndarray):
        h.update(b"A" + str(value.dtype).encode() + str(value.shape).encode())
        if value.dtype.hasobject:
            for item in value.ravel().tolist()[:10_000]:
                _feed(h, item, depth + 1)
        else:
            h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (bool, np.bool_)):
        h.update(b"B1" if value else b"B0")
    elif isinstance(value, (int, np.integer)):
        h.update(b"I" + str(int(value)).encode()[:1000] + b";")
    elif isinstance(value, (float, np.floating)):
        number = float(value)
        h.update(b"F" + (b"nan" if math.isnan(number) else struct.pack("<d", number)))
    elif isinstance(value, str):
        data = value.encode("utf-8", "replace")
        h.update(b"S" + str(len(data)).encode() + b":" + data)
    elif value is None:
        h.update(b"N")
    elif isinstance(value, (list, tuple)):
        h.update((b"L" if isinstance(value, list) else b"T") + str(len(value)).encode() + b":")
        for item in value:
            _feed(h, item, depth + 1)
    elif isinstance(value, dict):
        h.update(b"D" + str(len(value)).encode() + b":")
        for key in sorted(value, key=repr):
            _feed(h, key, depth + 1)
            _feed(h, value[key], depth + 1)
    elif isinstance(getattr(value, "fields", None), dict):  # a student's dataclass, as it crossed
        h.update(b"R" + str(getattr(value, "type_name", "")).encode())
        _feed(h, value.fields, depth + 1)
    else:
        h.update(b"?" + type(value).__name__.encode())


def value_hash(value: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    _feed(h, value)
    return h.hexdigest()[:DIGITS]


def input_hash(function: str, call: Call) -> str:
    return value_hash((function, tuple(call.args), dict(call.kwargs)))


def of(course: Course, function: str, failed: list[Call]) -> list[str]:
    """:func:`digest`, or nothing when it fails: instructors' evidence, never a reason to lose a grade."""
    try:
        return digest(course, function, failed)
    except Exception:  # noqa: BLE001 - the student's values (an int of 400 digits) must not cost the result
        return []


def digest(course: Course, function: str, failed: list[Call]) -> list[str]:
    """The function's wrong replies among the calls of its failed tests, as ``"<input>:<answer>"``
    entries (sorted; at most :data:`PER_FUNCTION`). Empty when none is a returned wrong value."""
    valued = [c for c in failed if not isinstance(c.outcome, Raised)][:CHECKED]
    if not valued:
        return []
    with quiet():
        wrong = wrong_calls(course, function, valued, Answers(course, function))
    entries = {f"{input_hash(function, call)}:{value_hash(call.outcome)}" for call, _ in wrong}
    return sorted(entries)[:PER_FUNCTION]
