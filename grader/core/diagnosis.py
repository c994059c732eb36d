"""Known mistakes: name the one a student made, from what their function answered.

The course keeps wrong implementations of each function exercise in
``autograder-tests/mistakes/<function>/<name>.py`` (hidden, like the tests; they are
also the tests of the tests). Each starts with a docstring::

    \"\"\"One line for course developers: what the implementation gets wrong.

    expect: a phrase the first message for this mistake must contain
    diagnosis: the message a student whose function behaves like this one reads first
    \"\"\"

While a submission is graded, the plugin keeps every call the tests made to the
student's function: its inputs and what came back (a value, or the type of error
raised). When some tests failed, :func:`diagnose` runs every known mistake of that
function here, in the trusted process (it is course code), on the inputs of the
failed tests, then of the first calls of the passed ones. A mistake that answers
exactly as the student did on all of them (within the exercise's tolerance), and unlike
the reference where the student failed, is the student's; when exactly one is, its
diagnosis is the first message. When none is, :func:`grader.core.observation.observe`
says what the failures share. Nothing of the student's runs here: only the values their function
returned are compared.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib.util
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from grader.core.course import Course

MISTAKES_DIR = "mistakes"  # under the course's autograder-tests/
# Calls of each passed test kept as evidence: every test probes something else, and a property
# test's hundred cases add little to its first ones.
PASSED_PER_TEST = 2
# Bytes of values kept as evidence per function of a submission: each call's values crossed the
# boundary under the reply limit, but a property test makes a hundred calls, and a student's
# replies must not decide how much of the grader's memory stays held until the diagnosis.
EVIDENCE_BYTES = 16 * 2**20
SUBMISSION_EVIDENCE_BYTES = 48 * 2**20  # all functions of a submission together (16 MiB each: 320 MiB)
HEADER = re.compile(r'\s*"""(.*?)"""', re.S)


@dataclass(frozen=True)
class Raised:
    """A call that raised instead of returning: the name of the exception's type."""

    error_type: str


@dataclass(frozen=True)
class Call:
    """One call of a student's function during a test: its arguments and what came back."""

    args: tuple
    kwargs: dict
    outcome: Any  # the returned value (as decoded in the trusted process), or Raised
    readonly: bool = False  # the arrays were read-only (the inputs-unchanged check): so they are when replayed


def value_bytes(value: Any, depth: int = 0) -> int:
    """At least the bytes ``value`` (a decoded reply or arguments) holds; linear in its size.

    Each object counts what the interpreter says it occupies (``sys.getsizeof``: a set's or
    dict's hash table, an int's digits), plus what it holds: a guess per kind counted a
    frozenset of ints at 43 % of its memory (review attack evidence_underestimate).
    """
    if isinstance(value, np.ndarray):
        return value.nbytes + 128
    if depth > 40:
        return 100
    fields = getattr(value, "fields", None)
    if isinstance(fields, dict):
        return sys.getsizeof(value) + value_bytes(fields, depth + 1)
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        return size + sum(value_bytes(k, depth + 1) + value_bytes(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return size + sum(value_bytes(v, depth + 1) for v in value)
    return size


def call_bytes(call: "Call") -> int:
    return value_bytes(call.args) + value_bytes(call.kwargs) + value_bytes(call.outcome)


@dataclass(frozen=True)
class Mistake:
    function: str
    name: str
    summary: str
    diagnosis: str
    run: Callable[..., Any]
    expect: str = ""  # the phrase that names this mistake in a probe's message (its cause id's text)


def read_header(text: str) -> tuple[str, dict[str, str]] | None:
    """(first line, ``key: value`` fields) of a mistake's docstring; None without a docstring.

    A field's value may go on over indented lines.
    """
    doc = HEADER.match(text)
    if doc is None:
        return None
    lines = doc.group(1).strip().splitlines()
    fields: dict[str, str] = {}
    key = None
    for line in lines:
        field = re.match(r"^(\w+):\s*(.*?)\s*$", line)
        if field:
            key = field.group(1)
            fields[key] = field.group(2)
        elif key is not None and line[:1].isspace() and line.strip():
            fields[key] += " " + line.strip()
        else:
            key = None
    return (lines[0].strip() if lines else ""), fields


def mistake_files(course: Course, function: str) -> list[Path]:
    return sorted((course.tests_dir / MISTAKES_DIR / function).glob("*.py"))


_loaded: dict[tuple, list[Mistake]] = {}


def known_mistakes(course: Course, function: str) -> list[Mistake]:
    """The function's known mistakes, each defined in a copy of the reference module's namespace.

    A mistake may call the module's other functions (its reference versions), as the
    wrong implementation does when it stands in a copy of the solutions.
    """
    files = mistake_files(course, function)
    key = (str(course.root), function, tuple((str(p), p.stat().st_mtime_ns) for p in files))
    if key not in _loaded:
        mistakes = []
        reference_globals = {k: v for k, v in course.reference(function).__globals__.items() if not k.startswith("__")}
        for path in files:
            header = read_header(path.read_text(encoding="utf-8"))
            if header is None or "diagnosis" not in header[1]:
                continue
            # Loaded as a module (its bytecode is cached like any import's), on top of the reference's names.
            spec = importlib.util.spec_from_file_location(f"_known_mistake_{function}_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            vars(module).update(reference_globals)
            spec.loader.exec_module(module)
            mistakes.append(
                Mistake(
                    function,
                    path.stem,
                    header[0],
                    header[1]["diagnosis"],
                    getattr(module, function),
                    header[1].get("expect", ""),
                )
            )
        _loaded[key] = mistakes
    return _loaded[key]


# -- comparing answers ------------------------------------------------------------------
_SCALARS = (bool, int, float, str, type(None))
_remembered: dict[tuple, tuple[bool, Any]] = {}


def remembered(function: Callable[..., Any], *args, **kwargs) -> Any:
    """``function(*args, **kwargs)``, remembered for the session when every argument is a scalar.

    Trusted course code only (the reference, known mistakes): a class's submissions meet the
    same calls, and a simulation is worth computing once. A remembered answer is returned as
    a copy (its caller may change it).
    """
    if not all(isinstance(v, _SCALARS) for v in (*args, *kwargs.values())):
        return function(*args, **kwargs)
    key = (function, args, tuple(sorted(kwargs.items())))
    if key not in _remembered:
        try:
            _remembered[key] = (True, function(*args, **kwargs))
        except Exception as error:
            _remembered[key] = (False, error)
    ok, answer = _remembered[key]
    if not ok:
        raise answer.with_traceback(None)
    return copy.deepcopy(answer)


def run(function: Callable[..., Any], call: Call) -> Any:
    """What ``function`` answers to ``call``'s arguments (copies: a mistake may write into them).

    A call made with read-only inputs is replayed with read-only copies, so a mistake that
    writes into its inputs raises as the student's code did. Call it within :func:`quiet`:
    numpy's warnings about a mistake's NaN are not for anyone.
    """

    def copy(value):
        if not isinstance(value, np.ndarray):
            return value
        value = np.array(value)
        value.setflags(write=not call.readonly)
        return value

    args = [copy(a) for a in call.args]
    kwargs = {k: copy(v) for k, v in call.kwargs.items()}
    try:
        return remembered(function, *args, **kwargs)
    except Exception as error:  # a mistake may well raise: that is an answer too
        return Raised(type(error).__name__)


@contextlib.contextmanager
def quiet():
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _plain(value: Any) -> Any:
    """An answer reduced to what is compared: numbers as float arrays, dataclasses as dicts of fields."""
    if isinstance(value, Raised) or value is None or isinstance(value, str):
        return value
    fields = getattr(value, "fields", None)  # a student's dataclass, as it crossed the boundary
    if isinstance(fields, dict) and hasattr(value, "type_name"):
        return {"": value.type_name, **{k: _plain(v) for k, v in fields.items()}}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"": type(value).__name__, **{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):  # a student's int beyond float's range too
        return repr(value)


def _same(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape:
            return False
        # np.allclose(..., equal_nan=True), without its overhead: this runs for every mistake and call. An
        # infinity is close to an infinity only (of either sign: 0 / 0 with a rounding residue), never to a
        # number: within a tolerance of rtol * inf, every finite number would be.
        finite_close = (np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b)
        close = finite_close | (a == b) | (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & np.isinf(b))
        return bool(close.all())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, (np.ndarray, dict, list)) or isinstance(b, (np.ndarray, dict, list)):
        return False
    return a == b


class Answers:
    """Compares answers with the student's, within the exercise's tolerance."""

    def __init__(self, course: Course, function: str):
        tolerance = course.exercise(function).tolerance
        self.rtol, self.atol = tolerance.rtol, tolerance.atol
        self._theirs: dict[int, Any] = {}

    def same(self, a: Any, b: Any) -> bool:
        return _same(_plain(a), _plain(b), self.rtol, self.atol)

    def agrees(self, call: Call, answer: Any) -> bool:
        """Is ``answer`` what the student answered to ``call``?"""
        if id(call) not in self._theirs:
            self._theirs[id(call)] = _plain(call.outcome)
        return _same(self._theirs[id(call)], _plain(answer), self.rtol, self.atol)


# -- the diagnosis --------------------------------------------------------------------------
def wrong_calls(course: Course, function: str, calls: list[Call], answers: Answers) -> list[tuple[Call, Any]]:
    """The calls whose answer differs from the reference's, each with the reference's answer."""
    reference = course.reference(function)
    with quiet():
        pairs = [(c, run(reference, c)) for c in calls]
    return [(c, want) for c, want in pairs if not answers.agrees(c, want)]


def diagnose(
    course: Course, function: str, failed: list[Call], passed: list[Call] = (), scope: str = "wrong result"
) -> tuple[str, str] | None:
    """(name, message) of the one known mistake that answers exactly like the student.

    ``failed`` are the calls made by the function's failed tests, ``passed`` the first calls
    (:data:`PASSED_PER_TEST`) of each passed test: a mistake must answer as the student did on
    all of them, and differ from the reference on at least one failed call (it explains a
    failure). None when no mistake, or more than one, does:
    also when the failures do not show in the returned values (inputs modified in place).
    ``scope`` is what ``failed`` holds, as the message says it ("wrong value": the failed input
    checks were left out, and the message does not claim to explain them).
    """
    mistakes = known_mistakes(course, function)
    if not mistakes or not failed:
        return None
    answers = Answers(course, function)
    with quiet():
        # Most mistakes part from the student at the first call or two: all() stops there.
        candidates = [m for m in mistakes if all(answers.agrees(c, run(m.run, c)) for c in [*failed, *passed])]
        if len(candidates) != 1:
            return None
        reference = course.reference(function)
        if all(answers.agrees(c, run(reference, c)) for c in failed):
            return None  # the student's answers are right: the failures lie elsewhere
    found = candidates[0]
    also = "" if scope == "wrong result" else "; the failed input checks listed after it are not part of it"
    return found.name, f"{found.diagnosis} (this known mistake explains every {scope} of {function}{also})"


# -- a probe's cause, only with evidence ----------------------------------------------------------
def causes_named(course: Course, function: str, message: str) -> list[str]:
    """The known mistakes a probe's message names: those whose ``expect:`` phrase it contains.

    These are the machine-readable ids of the cause a message states. A probe whose message
    contains no known mistake's phrase names no cause the grader can check.
    """
    text = message.lower()
    return [m.name for m in known_mistakes(course, function) if m.expect and m.expect.lower() in text]


def evidenced(
    course: Course,
    function: str,
    probe: list[Call],
    passed: list[Call],
    causes: list[str],
    relation: bool = False,
    failed: list[Call] = (),
) -> list[str]:
    """Which of ``causes`` the student's own answers show on a failed probe (``probe``: its calls).

    A relation between the student's answers (``relation``: the probe's isolating property,
    :class:`grader.testing.Evidenced`) shows every cause the message names. Otherwise a named
    mistake is shown when it answers exactly as the student did on every call of the probe and on
    the calls of the passed tests (where the student is right, so must it be), and is wrong
    wherever the student is wrong among ``failed`` (the calls of the other failed checks of
    behaviour): a mistake that answers right where the student does not is a narrower mistake
    that shares the probe's symptom (an EOS that does not stop only when excluded, against one
    that never stops), no evidence of the student's. A probe's message that differs from the
    reference but shows neither names a cause without evidence.
    """
    if relation or not causes:
        return list(causes)
    answers = Answers(course, function)
    by_name = {m.name: m for m in known_mistakes(course, function)}
    shown = []
    with quiet():
        probe_ids = {id(c) for c in probe}
        others = [
            (c, want)
            for c, want in wrong_calls(course, function, [c for c in failed if id(c) not in probe_ids], answers)
        ]
        for name in causes:
            mistake = by_name[name]
            if not (probe and all(answers.agrees(c, run(mistake.run, c)) for c in [*probe, *passed])):
                continue
            if all(not answers.same(run(mistake.run, c), want) for c, want in others):
                shown.append(name)
    return shown


def explained(course: Course, function: str, cause: str, calls: list[Call]) -> bool:
    """Does the known mistake ``cause`` answer exactly as the student on ``calls`` (one test's)?"""
    mistake = next(m for m in known_mistakes(course, function) if m.name == cause)
    answers = Answers(course, function)
    with quiet():
        return bool(calls) and all(answers.agrees(c, run(mistake.run, c)) for c in calls)
