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
diagnosis is the first message. When none is, :func:`observe` says what the
failures share. Nothing of the student's runs here: only the values their function
returned are compared.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib.util
import inspect
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
        # np.allclose(..., equal_nan=True), without its overhead: this runs for every mistake and call.
        close = (np.abs(a - b) <= atol + rtol * np.abs(b)) | (a == b) | (np.isnan(a) & np.isnan(b))
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


# -- what the failures have in common, when no known mistake explains them ----------------------
MASK_ARGUMENTS = ("mask", "token_mask")


def _returned_names(function: Callable) -> list[str]:
    """``a, b, c`` of a numpy-style ``Returns`` line ``a, b, c : type`` (several arrays in a tuple)."""
    doc = function.__doc__ or ""
    found = re.search(r"Returns\n\s*-+\n\s*([\w, ]+?)\s*:", doc)
    return [n.strip() for n in found.group(1).split(",")] if found and "," in found.group(1) else []


def _mask_of(reference: Callable, call: Call) -> np.ndarray | None:
    try:
        bound = inspect.signature(reference).bind(*call.args, **call.kwargs).arguments
    except TypeError:
        return None
    mask = next((bound[name] for name in MASK_ARGUMENTS if name in bound), None)
    return None if mask is None else np.asarray(mask, dtype=float)


def _where(got: Any, want: Any, mask: np.ndarray | None, answers: Answers) -> str:
    """Where two arrays of the same shape differ: "at masked positions only", "in the last element only"..."""
    if not (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)) or got.shape != want.shape or got.ndim == 0:
        return ""
    off = ~np.isclose(got, want, rtol=answers.rtol, atol=answers.atol, equal_nan=True)
    if mask is not None and mask.shape == got.shape:
        if not np.any(off & (mask != 0)):
            return "at masked positions only (prompt, padding)"
        if not np.any(off & (mask == 0)):
            return "at response positions only"
        return ""
    if got.ndim == 1 and got.size > 1:
        if np.flatnonzero(off).tolist() == [got.size - 1]:
            return "in the last element only"
        if np.flatnonzero(off).tolist() == [0]:
            return "in the first element only"
    if got.ndim == 2 and got.size > 1:
        # Rows are a batch's sequences or episodes: a row, or a position in every row, localises the error.
        rows, columns = np.flatnonzero(off.any(axis=1)).tolist(), np.flatnonzero(off.any(axis=0)).tolist()
        if got.shape[0] > 1 and rows == [0]:
            return "in the first row only"
        if got.shape[0] > 1 and rows == [got.shape[0] - 1]:
            return "in the last row only"
        if got.shape[1] > 1 and columns == [got.shape[1] - 1]:
            return "in each row's last element only"
        if got.shape[1] > 1 and columns == [0]:
            return "in each row's first element only"
    return ""


# -- what the grader observed, when no cause is evidenced -----------------------------------------
# Arguments read as masks or flags: their factor is "all set", "none set" or "mixed".
FLAG_ARGUMENTS = ("mask", "token_mask", "terminated", "trace_cuts", "dones", "done")


def _factors(reference: Callable, call: Call) -> dict[str, str]:
    """The input factors of a call, one word each, catalogue-free: read from the arguments' types.

    A number is 0, 1 or another value (gamma, gae_lambda, epsilon...); a flag is itself; a mask or
    boolean array is all set, none set or mixed; a 2-D array has one row or several; an array
    that holds an integer argument's value (an EOS or padding id among the tokens) holds it or not.
    """
    try:
        bound = inspect.signature(reference).bind(*call.args, **call.kwargs).arguments
    except TypeError:
        return {}
    factors: dict[str, str] = {}
    ids = {k: v for k, v in bound.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}
    for name, value in bound.items():
        if isinstance(value, (bool, np.bool_)):
            factors[name] = f"{name}={bool(value)}"
        elif isinstance(value, (int, float, np.integer, np.floating)):
            v = float(value)
            factors[name] = f"{name} = {v:g}" if v in (0.0, 1.0) else f"{name} not 0 or 1"
        elif isinstance(value, (np.ndarray, list, tuple)):
            try:
                array = np.asarray(value)
            except (TypeError, ValueError):
                continue
            if array.dtype == object:
                continue
            if array.dtype == bool or name in FLAG_ARGUMENTS:
                flags = array != 0
                if flags.size:
                    factors[name] = (
                        f"{name} all set" if flags.all() else f"{name} none set" if not flags.any() else f"{name} mixed"
                    )
            if array.ndim == 1 and array.dtype != bool and name not in FLAG_ARGUMENTS:
                factors[f"{name} length"] = (
                    f"{name} empty"
                    if array.size == 0
                    else f"{name} of one element"
                    if array.size == 1
                    else f"{name} of several elements"
                )
            if array.ndim == 2:
                factors[f"{name} rows"] = f"one row of {name}" if array.shape[0] == 1 else f"several rows of {name}"
            if array.dtype.kind in "iu" and array.ndim == 2:  # token ids: holding an EOS or padding id or not
                for id_name, id_value in ids.items():
                    holds = bool(np.any(array == id_value))
                    factors[f"{name} {id_name}"] = f"{name} holding {id_name}" if holds else f"{name} without {id_name}"
    return factors


def _numbers(reference: Callable, call: Call) -> dict[str, float]:
    """The plain numbers among a call's arguments (gamma, eps, clip epsilon...), by name; flags excluded."""
    try:
        bound = inspect.signature(reference).bind(*call.args, **call.kwargs).arguments
    except TypeError:
        return {}
    return {
        k: float(v)
        for k, v in bound.items()
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
    }


def _ordered(reference: Callable, wrong: list[Call], right: list[Call]) -> list[str]:
    """ "wrong only with the smaller values of eps": every wrong answer's number lies below (or above)
    every right answer's, the wrong ones not all 0 or 1 (that the factors say). No value is shown."""
    wrong_numbers = [_numbers(reference, c) for c in wrong]
    right_numbers = [_numbers(reference, c) for c in right]
    words = []
    for name in dict.fromkeys(k for n in wrong_numbers for k in n):
        low = [n[name] for n in wrong_numbers if name in n]
        high = [n[name] for n in right_numbers if name in n]
        if len(low) < len(wrong_numbers) or not high or set(low) <= {0.0, 1.0} or not np.all(np.isfinite(low)):
            continue
        if max(low) < min(high):
            words.append(f"wrong only with the smaller values of {name} (every answer with a larger {name} is right)")
        elif min(low) > max(high):
            words.append(f"wrong only with the larger values of {name} (every answer with a smaller {name} is right)")
    return words


def _bound(reference: Callable, call: Call) -> dict[str, Any] | None:
    try:
        return dict(inspect.signature(reference).bind(*call.args, **call.kwargs).arguments)
    except TypeError:
        return None


def _equal_argument(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        except TypeError:
            return False
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - a comparison the values do not support: not equal
        return False


# Pairs of calls compared for an ignored argument: the kept calls are bounded, the pairs are too.
PAIR_CALLS = 200


def _ignored(reference: Callable, judged: list[tuple[Call, Any]], answers: Answers) -> list[str]:
    """ "your answers do not change with gae_lambda": two of the student's calls that differ in that argument
    alone got the same answer from them where the right answers differ (a relation between their own
    answers: the metamorphic test of an ignored input). Said once per argument; no value shown."""
    found: dict[str, bool] = {}  # argument -> is it an array
    calls = [(c, want, _bound(reference, c)) for c, want in judged[:PAIR_CALLS] if not isinstance(c.outcome, Raised)]
    calls = [(c, want, b) for c, want, b in calls if b is not None]
    for i, (a, want_a, bound_a) in enumerate(calls):
        for b, want_b, bound_b in calls[i + 1 :]:
            if bound_a.keys() != bound_b.keys():
                continue
            differ = [k for k in bound_a if not _equal_argument(bound_a[k], bound_b[k])]
            if len(differ) != 1 or differ[0] in found:
                continue
            if answers.same(a.outcome, b.outcome) and not answers.same(want_a, want_b):
                found[differ[0]] = isinstance(bound_a[differ[0]], (np.ndarray, list, tuple))
    # A number or flag the answers ignore is said so; two different arrays that get one answer are a
    # narrower fact (the answers do change with other arrays).
    return [
        f"two inputs that differ in {name} alone get the same answer from you, and their right answers differ"
        if array
        else f"your answers do not change with {name} (two inputs that differ in {name} alone get the "
        f"same answer from you, and their right answers differ)"
        for name, array in found.items()
    ]


def _pieces(reference: Callable, got: Any, want: Any) -> list[tuple[str, Any, Any]]:
    """(name, got, want) for each named part of an answer (fields, keys, a tuple's arrays), or the whole."""
    names = _returned_names(reference)
    if isinstance(want, dict) and isinstance(got, dict) and got.keys() == want.keys():
        return [(k, got[k], want[k]) for k in want if k]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want) == len(names):
        return list(zip(names, got, want))
    return [("", got, want)]


# Elementwise functions a wrong answer may be of the right one: a log-probability returned for a probability
# (or an exp forgotten), an exp applied once too often (or a log forgotten), a ratio inverted. Said only when the
# relation holds for every wrong answer, on at least two of them, and the wrong values are not one constant (a
# body answering ones where the right answer is zeros is no exp of it).
ELEMENTWISE = {
    "the log of the right answer": np.log,
    "the exp of the right answer": np.exp,
    "the reciprocal of the right answer": np.reciprocal,
}
ELEMENTWISE_ANSWERS = 2


def _shape_of_error(got: Any, want: Any, answers: Answers) -> set[str]:
    """What relates a wrong array to the right one, in words that show no value."""
    if not (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)):
        return set()
    shapes = {
        words
        for words, function in ELEMENTWISE.items()
        if got.shape == want.shape and got.size and answers.same(got, function(want))
    }
    same = answers.same
    if got.shape != want.shape:
        if got.ndim == 2 and got.shape == want.shape[::-1] and same(got.T, want):
            return {"transposed"}
        return {"of the wrong shape"}
    if got.ndim > 0 and got.size > 0:
        if got.shape[-1] > 1 and same(got[..., ::-1], want):
            shapes.add("the right answer reversed")
        if got.shape[-1] > 1 and (same(got[..., 1:], want[..., :-1]) or same(got[..., :-1], want[..., 1:])):
            shapes.add("the right answer shifted by one position")
        if got.ndim == 2 and got.shape[0] == got.shape[1] and got.shape[0] > 1 and same(got.T, want):
            shapes.add("transposed")
    if np.any(want != 0) and same(got, -want):
        shapes.add("the right answer with its sign flipped")
    finite = np.isfinite(got) & np.isfinite(want)
    nonzero = finite & (np.abs(want) > answers.atol)
    # A factor is a relation only between several numbers: any wrong single number is "a factor" off.
    if np.count_nonzero(nonzero) > 1 and not np.any(~np.isfinite(got) & np.isfinite(want)):
        ratio = got[nonzero] / want[nonzero]
        if (
            np.allclose(ratio, ratio.flat[0], rtol=1e-9, atol=0)
            and not np.isclose(ratio.flat[0], 1.0)
            and same(got, ratio.flat[0] * want)
        ):
            shapes.add("the right answer times a constant factor")
    if np.count_nonzero(finite) > 1 and finite.all():
        offset = got - want
        if np.allclose(
            offset, offset.flat[0], rtol=0, atol=answers.atol + answers.rtol * np.max(np.abs(want))
        ) and not same(got, want):
            shapes.add("the right answer plus a constant")
    if np.any(~np.isfinite(got) & np.isfinite(want)):
        shapes.add("NaN or inf where the answer is finite")
    return shapes


def observe(
    course: Course, function: str, failed: list[Call], passed: list[Call] = (), relations: list[str] = ()
) -> str | None:
    """What the student's wrong answers show, found by the grader and naming no cause; None if nothing.

    Which input factor the error depends on (:func:`_factors`: every wrong answer shares one
    value of a factor while the answers with its other values are all right), where it is wrong
    (named parts, masked or response positions, first or last element) and the shape of the error
    (reversed, shifted by one, sign flipped, a constant factor, transposed; the log, exp or reciprocal
    of the right answer, on at least two wrong answers: :data:`ELEMENTWISE`), each said only when
    it holds for every wrong answer. Never a value of a hidden case. ``relations``: the messages of
    failed relations between the student's own answers that name no cause (said first, once each).
    """
    seen = observations(course, function, failed, passed)
    relations = list(dict.fromkeys(relations))[:2]
    if seen is None:
        if not relations:
            return None
        seen = ("", [])
    count, words = seen
    if relations:
        return f"{function}: no known mistake explains every wrong result; what your answers show: " + "; ".join(
            [*relations, *([count] if count else []), *words]
        )
    return f"{function}: no known mistake explains every wrong result; what your answers show: " + "; ".join(
        [count, *words]
    )


def observations(
    course: Course, function: str, failed: list[Call], passed: list[Call] = ()
) -> tuple[str, list[str]] | None:
    """(how many answers are wrong, what they show) for :func:`observe`; None when none is wrong."""
    reference = course.reference(function)
    answers = Answers(course, function)
    with quiet():
        judged = [(c, run(reference, c)) for c in [*failed, *passed]]
    judged = [(c, want) for c, want in judged if not isinstance(want, Raised)]
    wrong = [(c, want) for c, want in judged if not answers.agrees(c, want)]
    right = [c for c, want in judged if answers.agrees(c, want)]
    if not wrong:
        return None
    raised = [c for c, _ in wrong if isinstance(c.outcome, Raised)]
    valued = [(c, want) for c, want in wrong if not isinstance(c.outcome, Raised)]
    words: list[str] = []
    if raised and not valued:
        types = sorted({c.outcome.error_type for c in raised})
        return f"it raises {' or '.join(types)} on {len(raised)} input(s) where the contract defines an answer", []
    # Which factor: every wrong answer shares one value of it, and an input with another value is answered right.
    wrong_factors = [_factors(reference, c) for c, _ in valued]
    right_factors = [_factors(reference, c) for c in right]
    splits = set()
    for key in dict.fromkeys(k for f in wrong_factors for k in f):
        values = {f.get(key) for f in wrong_factors}
        others = {f.get(key) for f in right_factors if key in f} - values
        # Factors that split the calls alike (a batch's rows, in each of its arrays) are said once.
        split = tuple(key in f and f[key] in values for f in right_factors)
        if len(values) == 1 and None not in values and others and split not in splits:
            splits.add(split)
            words.append(f"wrong only with {values.pop()} (every answer with {' or '.join(sorted(others))} is right)")
    words += _ordered(reference, [c for c, _ in valued], right)
    words += _ignored(reference, judged, answers)
    # Where, and the shape of the error.
    parts, where, shapes = set(), set(), None
    every = set()
    wrong_pieces, wrong_values = 0, []  # for the elementwise relations: on how many answers, and which values
    with quiet():
        for call, want in valued:
            pieces = _pieces(reference, _plain(call.outcome), _plain(want))
            every |= {name for name, *_ in pieces}
            for name, g, e in pieces:
                if answers.same(g, e):
                    continue
                parts.add(name)
                where.add(_where(g, e, _mask_of(reference, call), answers))
                found = _shape_of_error(g, e, answers)
                shapes = found if shapes is None else shapes & found
                wrong_pieces += 1
                if isinstance(g, np.ndarray) and isinstance(e, np.ndarray) and g.shape == e.shape:
                    wrong_values.append(g[~np.isclose(g, e, rtol=answers.rtol, atol=answers.atol, equal_nan=True)])
    if shapes and (
        wrong_pieces < ELEMENTWISE_ANSWERS or np.unique(np.concatenate(wrong_values or [np.zeros(0)])).size < 2
    ):
        shapes -= set(ELEMENTWISE)
    if "" not in parts and parts and parts < every:
        words.append(f"only {' and '.join(sorted(parts))} {'is' if len(parts) == 1 else 'are'} ever wrong")
    if len(where) == 1 and "" not in where:
        words.append(f"the wrong values always sit {where.pop()}")
    for shape in sorted(shapes or ()):
        words.append(
            f"each wrong answer is {shape}"
            if shape.startswith(("the ", "transposed", "of "))
            else f"each wrong answer has {shape}"
        )
    if raised:
        words.append(f"it also raises on {len(raised)} input(s) where the contract defines an answer")
    return f"{len(wrong)} of {len(judged)} answers checked are wrong", words
