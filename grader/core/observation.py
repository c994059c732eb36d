"""What a student's wrong answers show when no known mistake explains them: found by the grader, naming no cause.

:func:`observe` is the first message when neither a known mistake nor a probe's evidenced cause is; a
probe whose cause is not shown is rewritten with :func:`observations` ("wrong on a hand-built input
(...)"). Every statement holds for every wrong answer (catalogue-free, never a value of a hidden case),
and they are said in the order of how much each narrows the cause (:mod:`grader.core.relations`):

1. the right answer of another input: "your answers for reduction='token_mean' are the right answers for
   reduction='sequence_mean'", "... the right answer for action - 1", "... with new_log_probs and
   old_log_probs swapped";
2. a relation to the right answer with no constant of its own: the log, exp or reciprocal, reversed,
   shifted by one position, transposed, reduced over the other axis, a running total instead of a total,
   times a factor that follows a count ("times n / (n - 1), with n the number of elements of rewards"),
   the elementwise maximum of two fields;
3. where the error sits: one field of a record, masked positions only, the first or last element, where
   an input is smallest; zeros where the answer is not; NaN or inf where it is finite;
4. which input factor the error follows: a flag, integer inputs, inputs holding inf or nan or tied values,
   an EOS among the tokens, an ignored input;
5. a relation with a constant of each answer's own (times a factor, plus a constant); the error unchanged
   by an input;
6. what most mistakes share: several elements or rows, a number not 0 or 1, the wrong shape; and last of
   all, how many answers are wrong.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable

import numpy as np

from grader.core.course import Course
from grader.core.diagnosis import Answers, Call, Raised, _plain, quiet, run
from grader.core.relations import (
    BROAD,
    FACTOR,
    FITTED,
    FLAG_ARGUMENTS,
    MIN_ANSWERS,
    PLACE,
    RELATION,
    Piece,
    Seen,
    answer_relations,
    bound,
    other_inputs,
)

MASK_ARGUMENTS = ("mask", "token_mask")
# Pairs of calls compared for an ignored argument: the kept calls are bounded, the pairs are too.
PAIR_CALLS = 200
# Answers an input must order (wrong positions below or above the right ones) before it is said: hand-built inputs
# often put their one special record where a value is largest, so a few answers show nothing.
ORDERED_ANSWERS = 4
# A factor value most inputs have (writeable, finite, floats, distinct values): it names the other values when
# those are the wrong ones, and is never said as "wrong only with" itself (any mistake is, where the others are rare).
QUIET = BROAD + 1


def observe(
    course: Course, function: str, failed: list[Call], passed: list[Call] = (), relations: list[str] = ()
) -> str | None:
    """What the student's wrong answers show, found by the grader and naming no cause; None if nothing.

    The statements of :func:`observations`, the narrowest first, and the count of wrong answers last.
    ``relations``: the messages of failed relations between the student's own answers that name no cause
    (said first, once each). Never a value of a hidden case.
    """

    seen = observations(course, function, failed, passed)
    relations = list(dict.fromkeys(relations))[:2]
    if seen is None and not relations:
        return None
    count, words = seen if seen is not None else ("", [])
    return f"{function}: no known mistake explains every wrong result; what your answers show: " + "; ".join(
        [*relations, *words, *([count] if count else [])]
    )


def observations(
    course: Course, function: str, failed: list[Call], passed: list[Call] = ()
) -> tuple[str, list[str]] | None:
    """(how many answers are wrong, what they show, the narrowest first); None when none is wrong.

    The count is "" when every wrong answer raised: the first statement says so.
    """

    reference = course.reference(function)
    answers = Answers(course, function)
    with quiet():
        judged = [(c, run(reference, c)) for c in [*failed, *passed]]
        judged = [(c, want) for c, want in judged if not isinstance(want, Raised)]
        wrong = [(c, want) for c, want in judged if not answers.agrees(c, want)]
        if not wrong:
            return None
        right = [c for c, want in judged if answers.agrees(c, want)]
        raised = [c for c, _ in wrong if isinstance(c.outcome, Raised)]
        valued = [(c, want) for c, want in wrong if not isinstance(c.outcome, Raised)]
        if raised and not valued:
            return "", _raising(reference, raised, right)
        seen = _seen(reference, judged, valued, right, answers)
    if raised:
        seen.append(Seen(BROAD, f"it also raises on {len(raised)} input(s) where the contract defines an answer"))
    return f"{len(wrong)} of {len(judged)} answers checked are wrong", [s.text for s in _ranked(seen)]


def _raising(reference: Callable, raised: list[Call], right: list[Call]) -> list[str]:
    """ "it raises UFuncTypeError only with rewards of integers (...), on 1 input where the contract defines an
    answer": each error with the narrowest input factor it follows (a casting error with integers, a write into
    read-only inputs), then the other factors."""
    types = sorted({c.outcome.error_type for c in raised})
    where = f"on {len(raised)} input(s) where the contract defines an answer"
    said, rest = [], []
    for kind in types:
        factors = _ranked(_factor_words(reference, [c for c in raised if c.outcome.error_type == kind], right))
        narrow = [f for f in factors if f.rank < BROAD]
        said.append(kind + (" " + narrow[0].text.replace("wrong only with", "only with", 1) if narrow else ""))
        rest += [f.text for f in (factors[1:] if narrow else factors)] if len(types) == 1 else []
    return [f"it raises {', and '.join(said)}, {where}", *rest]


def _ranked(seen: list[Seen]) -> list[Seen]:
    """The statements, the narrowest first (in the order found within a rank), each said once."""
    texts = dict.fromkeys(s.text for s in sorted(seen, key=lambda s: s.rank))
    return [next(s for s in seen if s.text == t) for t in texts]


def _seen(reference: Callable, judged: list, valued: list, right: list[Call], answers: Answers) -> list[Seen]:
    """Every statement the wrong answers that returned a value show (:func:`observations`)."""
    args = {id(c): bound(reference, c) or {} for c, _ in judged}
    names = _returned_names(reference)
    pieces, every = [], set()
    for call, want in valued:
        for part, got, right_value, others in _pieces(names, _plain(call.outcome), _plain(want)):
            every.add(part)
            if not answers.same(got, right_value):
                pieces.append(Piece(call, part, got, right_value, others, args[id(call)]))
    seen = other_inputs(
        reference, [(c, want, args[id(c)]) for c, want in valued], [(c, args[id(c)]) for c, _ in judged], answers
    )
    related = answer_relations(pieces, answers, every)
    seen += related
    seen += _places(pieces, every, answers, shaped=any(s.rank == RELATION for s in related))
    seen += _ordered_positions(pieces, answers)
    seen += _factor_words(reference, [c for c, _ in valued], right)
    seen += _ignored(reference, judged, answers)
    return seen


# -- where the error sits ---------------------------------------------------------------------------
def _returned_names(function: Callable) -> list[str]:
    """``a, b, c`` of a numpy-style ``Returns`` line ``a, b, c : type`` (several arrays in a tuple)."""
    doc = function.__doc__ or ""
    found = re.search(r"Returns\n\s*-+\n\s*([\w, ]+?)\s*:", doc)
    return [n.strip() for n in found.group(1).split(",")] if found and "," in found.group(1) else []


def _pieces(names: list[str], got: Any, want: Any) -> list[tuple[str, Any, Any, dict]]:
    """(name, got, want, the other parts' right values) for each named part of an answer (fields, keys, a
    tuple's arrays), or the whole."""
    if isinstance(want, dict) and isinstance(got, dict) and got.keys() == want.keys():
        parts = {k: v for k, v in want.items() if k}
        return [(k, got[k], v, {o: w for o, w in parts.items() if o != k}) for k, v in parts.items()]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want) == len(names):
        parts = dict(zip(names, want))
        return [(k, g, parts[k], {o: w for o, w in parts.items() if o != k}) for k, g in zip(names, got)]
    return [("", got, want, {})]


def _mask(args: dict) -> np.ndarray | None:
    mask = next((args[name] for name in MASK_ARGUMENTS if name in args), None)
    return None if mask is None else np.asarray(mask, dtype=float)


def _off(got: Any, want: Any, answers: Answers) -> np.ndarray | None:
    """Where two arrays of one shape differ; None for anything else."""
    if not (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)) or got.shape != want.shape:
        return None
    return ~np.isclose(got, want, rtol=answers.rtol, atol=answers.atol, equal_nan=True)


def _where(got: Any, want: Any, mask: np.ndarray | None, answers: Answers) -> tuple[int, str]:
    """(rank, where two arrays of the same shape differ): "at masked positions only", "in the last element
    only"...; (0, "") when nowhere in particular."""
    off = _off(got, want, answers)
    if off is None or got.ndim == 0:
        return 0, ""
    if mask is not None and mask.shape == got.shape:
        if not np.any(off & (mask != 0)):
            return PLACE, "at masked positions only (prompt, padding)"
        if not np.any(off & (mask == 0)):
            return BROAD, "at response positions only"  # where most mistakes of a masked function are
        return 0, ""
    if got.ndim == 1 and got.size > 1:
        if np.flatnonzero(off).tolist() == [got.size - 1]:
            return PLACE, "in the last element only"
        if np.flatnonzero(off).tolist() == [0]:
            return PLACE, "in the first element only"
    if got.ndim == 2 and got.size > 1:
        # Rows are a batch's sequences or episodes: a row, or a position in every row, localises the error.
        rows, columns = np.flatnonzero(off.any(axis=1)).tolist(), np.flatnonzero(off.any(axis=0)).tolist()
        if got.shape[0] > 1 and rows == [0]:
            return PLACE, "in the first row only"
        if got.shape[0] > 1 and rows == [got.shape[0] - 1]:
            return PLACE, "in the last row only"
        if got.shape[1] > 1 and columns == [got.shape[1] - 1]:
            return PLACE, "in each row's last element only"
        if got.shape[1] > 1 and columns == [0]:
            return PLACE, "in each row's first element only"
    return 0, ""


def _places(pieces: list[Piece], every: set[str], answers: Answers, shaped: bool) -> list[Seen]:
    """Which fields are wrong, where in an array, the wrong values all 0 (or one number), NaN or inf where
    the answer is finite, the wrong shape (said only when no relation of another shape was: ``shaped``)."""
    seen = []
    parts = {p.part for p in pieces}
    where = {_where(p.got, p.want, _mask(p.args), answers) for p in pieces}
    place = where.pop() if len(where) == 1 and next(iter(where))[1] else None
    if "" not in parts and parts and parts < every:
        if len(parts) == 1:
            # One field, and where in it: "only clipped is ever wrong, always at masked positions only".
            words = f"only {next(iter(parts))} is ever wrong" + (f", always {place[1]}" if place else "")
            seen.append(Seen(PLACE, words))
            place = None
        else:  # several fields of a record: most mistakes of one of them reach the others
            seen.append(Seen(FITTED, f"only {' and '.join(sorted(parts))} are ever wrong"))
    if place:
        seen.append(Seen(place[0], f"the wrong values always sit {place[1]}"))
    offs = [_off(p.got, p.want, answers) for p in pieces]
    if pieces and all(o is not None for o in offs):
        values = np.concatenate([p.got[o].ravel() for p, o in zip(pieces, offs)])
        if values.size >= 2 and np.all(np.abs(values) <= answers.atol):
            seen.append(Seen(PLACE, "your answer is 0 wherever it is wrong"))
        elif len(pieces) >= MIN_ANSWERS and values.size >= 2 and np.all(np.isfinite(values)) and np.ptp(values) == 0:
            seen.append(Seen(FITTED, "every wrong value is one and the same number"))
        if all(np.any(~np.isfinite(p.got) & np.isfinite(p.want)) for p in pieces):
            seen.append(Seen(PLACE, "each wrong answer has NaN or inf where the answer is finite"))
    arrays = [p for p in pieces if isinstance(p.got, np.ndarray) and isinstance(p.want, np.ndarray)]
    if pieces and len(arrays) == len(pieces) and all(p.got.shape != p.want.shape for p in arrays) and not shaped:
        seen.append(Seen(BROAD, "each wrong answer is of the wrong shape"))
    return seen


def _ordered_positions(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """ "the wrong values sit where ratio is smallest": in each wrong answer, an input aligned with it is
    smaller (larger) at every wrong position than at every right one (the positions of all its fields;
    a position whose right answer is 0 within the tolerance is right for a tiny wrong value too, and
    counts as neither)."""
    by_call: dict[int, tuple[dict, np.ndarray, np.ndarray]] = {}
    for p in pieces:
        off = _off(p.got, p.want, answers)
        if off is None or off.ndim == 0:
            continue
        args, wrong, tiny = by_call.get(id(p.call), (p.args, np.zeros(off.shape, bool), np.zeros(off.shape, bool)))
        if wrong.shape != off.shape:
            continue
        by_call[id(p.call)] = (args, wrong | off, tiny | (np.abs(p.want) <= answers.atol))
    found: dict[str, set[str]] = {}  # argument -> the directions that hold in every answer
    shown: dict[str, int] = {}  # argument -> answers with wrong and right positions
    for args, off, tiny in by_call.values():
        right = ~off & ~tiny
        for name, value in args.items():
            if name in FLAG_ARGUMENTS or not isinstance(value, np.ndarray) or value.dtype.kind not in "iuf":
                continue
            if value.shape != off.shape or not right.any() or not off.any():
                continue
            bad, good = value[off], value[right]
            if not (np.isfinite(bad).all() and np.isfinite(good).all()):
                continue
            holds = ({"smallest"} if bad.max() < good.min() else set()) | (
                {"largest"} if bad.min() > good.max() else set()
            )
            found[name] = found.get(name, holds) & holds
            shown[name] = shown.get(name, 0) + 1
    held = {name: directions for name, directions in found.items() if directions and shown[name] >= ORDERED_ANSWERS}
    if len(held) != 1:  # two inputs that order the positions alike: which one the error follows is not shown
        return []
    seen = []
    for name, directions in held.items():
        if directions:
            direction = directions.pop()
            other = "smaller" if direction == "largest" else "larger"
            seen.append(
                Seen(
                    PLACE,
                    f"the wrong values sit where {name} is {direction} (at every position with a {other} {name} "
                    "the answer is right)",
                )
            )
    return seen


# -- which input factor the error follows -----------------------------------------------------------------
def _factors(reference: Callable, call: Call) -> dict[str, tuple[int, str]]:
    """The input factors of a call, one word each with its rank, catalogue-free: read from the arguments.

    A number is 0, 1 or another value (gamma, gae_lambda, epsilon...); a flag is itself; a mask or
    boolean array is all set, none set or mixed; an array holds integers or floats, inf or nan or not,
    tied values or not, and has its number of dimensions; a 1-D array is empty, of one element or of
    several; a 2-D array has one row or several; an array of token ids holds an integer argument's value
    (an EOS or padding id) or not. What most inputs are (several elements, finite...) ranks as broad.
    """
    try:
        bound_args = inspect.signature(reference).bind(*call.args, **call.kwargs).arguments
    except TypeError:
        return {}
    # Inputs handed over read-only (the inputs-unchanged checks): an in-place write raises only there.
    factors: dict[str, tuple[int, str]] = {
        "read-only": (FACTOR, "read-only input arrays") if call.readonly else (QUIET, "writeable input arrays")
    }
    ids = {k: v for k, v in bound_args.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}
    for name, value in bound_args.items():
        if isinstance(value, (bool, np.bool_)):
            factors[name] = (FACTOR, f"{name}={bool(value)}")
        elif isinstance(value, (int, float, np.integer, np.floating)):
            v = float(value)
            factors[name] = (FACTOR, f"{name} = {v:g}") if v in (0.0, 1.0) else (BROAD, f"{name} not 0 or 1")
        elif isinstance(value, (np.ndarray, list, tuple)):
            try:
                array = np.asarray(value)
            except (TypeError, ValueError):
                continue
            if array.dtype == object:
                continue
            # A list where an array is meant (the contract accepts lists): code calling .shape on it raises there.
            # Said before what the array holds, which a single raising call has by chance as much as not.
            kind = (
                (FACTOR, f"{name} given as a list")
                if not isinstance(value, np.ndarray)
                else (QUIET, f"{name} as an array")
            )
            factors[f"{name} type"] = kind
            factors.update(_array_factors(name, array, ids))
    return factors


def _array_factors(name: str, array: np.ndarray, ids: dict) -> dict[str, tuple[int, str]]:
    factors: dict[str, tuple[int, str]] = {f"{name} ndim": (FACTOR, f"{array.ndim}-D {name}")}
    flag = array.dtype == bool or name in FLAG_ARGUMENTS
    if flag:
        flags = array != 0
        if flags.size:
            factors[name] = (
                (FACTOR, f"{name} all set")
                if flags.all()
                else (FACTOR, f"{name} none set")
                if not flags.any()
                else (BROAD, f"{name} mixed")
            )
    if array.dtype.kind in "iuf":
        factors[f"{name} dtype"] = (
            (FACTOR, f"{name} of integers") if array.dtype.kind in "iu" else (QUIET, f"{name} of floats")
        )
    if array.dtype.kind == "f":
        finite = bool(np.isfinite(array).all())
        factors[f"{name} finite"] = (QUIET, f"finite {name}") if finite else (FACTOR, f"{name} holding inf or nan")
    if array.ndim == 1 and not flag:
        factors[f"{name} length"] = (
            (FACTOR, f"{name} empty")
            if array.size == 0
            else (FACTOR, f"{name} of one element")
            if array.size == 1
            else (BROAD, f"{name} of several elements")
        )
        if array.size > 1 and array.dtype.kind in "iuf":
            tied = np.unique(array).size < array.size
            factors[f"{name} ties"] = (
                (FACTOR, f"{name} holding tied values") if tied else (QUIET, f"{name} of distinct values")
            )
    if array.ndim == 2:
        factors[f"{name} rows"] = (
            (FACTOR, f"one row of {name}") if array.shape[0] == 1 else (BROAD, f"several rows of {name}")
        )
    if array.dtype.kind in "iu" and array.ndim == 2:  # token ids: holding an EOS or padding id or not
        for id_name, id_value in ids.items():
            holds = bool(np.any(array == id_value))
            factors[f"{name} {id_name}"] = (
                FACTOR,
                f"{name} holding {id_name}" if holds else f"{name} without {id_name}",
            )
    return factors


def _factor_words(reference: Callable, wrong: list[Call], right: list[Call]) -> list[Seen]:
    """ "wrong only with include_eos=False (every answer with include_eos=True is right)": every wrong answer
    shares one value of a factor, and an answer with another value is right; and the ordered numbers."""
    wrong_factors = [_factors(reference, c) for c in wrong]
    right_factors = [_factors(reference, c) for c in right]
    candidates = []
    for key in dict.fromkeys(k for f in wrong_factors for k in f):
        values = {f.get(key) for f in wrong_factors}
        others = {f[key][1] for f in right_factors if key in f} - {v[1] for v in values if v}
        if len(values) == 1 and None not in values and others:
            rank, words = values.pop()
            split = tuple(key in f and f[key][1] == words for f in right_factors)
            # A value most of the inputs checked have narrows little, whatever it is ("1-D advantages").
            if rank == FACTOR and len(wrong) + sum(split) > (len(wrong) + len(right)) / 2:
                rank = BROAD
            candidates.append((rank, split, key.partition(" ")[2], words, others))
    # Factors of one kind that split the calls alike (a batch's rows, in each of its arrays) are said once: the
    # narrowest. Two of different kinds that split them alike (a list, of integers) are said together: which one
    # the error follows, the answers do not show.
    said: dict[tuple, dict] = {}
    for rank, split, kind, words, others in sorted(candidates, key=lambda c: c[0]):
        if rank == QUIET:
            continue
        kept = said.get(split)
        if kept is None:
            said[split] = {"rank": rank, "kinds": {kind}, "words": [words], "others": set(others)}
        elif kept["rank"] == rank and kind not in kept["kinds"] and len(kept["words"]) < 2:
            kept["kinds"].add(kind)
            kept["words"].append(words)
            kept["others"] |= others
    seen = [
        Seen(
            k["rank"],
            f"wrong only with {' and '.join(k['words'])} (every answer with {' or '.join(sorted(k['others']))} is right)",
        )
        for k in said.values()
    ]
    return seen + [Seen(FACTOR, words) for words in _ordered(reference, wrong, right)]


def _numbers(reference: Callable, call: Call) -> dict[str, float]:
    """The plain numbers among a call's arguments (gamma, eps, clip epsilon...), by name; flags excluded."""
    try:
        bound_args = inspect.signature(reference).bind(*call.args, **call.kwargs).arguments
    except TypeError:
        return {}
    return {
        k: float(v)
        for k, v in bound_args.items()
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


# -- an input the answers, or their errors, do not follow --------------------------------------------------
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


def _bound(reference: Callable, call: Call) -> dict[str, Any] | None:
    try:
        return dict(inspect.signature(reference).bind(*call.args, **call.kwargs).arguments)
    except TypeError:
        return None


def _ignored(reference: Callable, judged: list[tuple[Call, Any]], answers: Answers) -> list[Seen]:
    """ "your answers do not change with gae_lambda": two of the student's calls that differ in that argument
    alone got the same answer from them where the right answers differ (a relation between their own
    answers: the metamorphic test of an ignored input). "your error does not change with gamma": two such
    calls are both wrong, by the same amounts (the mistake lies where gamma plays no part). Said once per
    argument; no value shown."""
    ignored: dict[str, bool] = {}  # argument -> is it an array
    unchanged: dict[str, bool] = {}
    calls = [(c, want, _bound(reference, c)) for c, want in judged[:PAIR_CALLS] if not isinstance(c.outcome, Raised)]
    calls = [(c, want, b) for c, want, b in calls if b is not None]
    for i, (a, want_a, bound_a) in enumerate(calls):
        for b, want_b, bound_b in calls[i + 1 :]:
            if bound_a.keys() != bound_b.keys():
                continue
            differ = [k for k in bound_a if not _equal_argument(bound_a[k], bound_b[k])]
            if len(differ) != 1:
                continue
            name = differ[0]
            array = isinstance(bound_a[name], (np.ndarray, list, tuple))
            if name not in ignored and answers.same(a.outcome, b.outcome) and not answers.same(want_a, want_b):
                ignored[name] = array
            elif name not in unchanged and _same_error(a.outcome, want_a, b.outcome, want_b, answers):
                unchanged[name] = array
    # A number or flag the answers ignore is said so; two different arrays that get one answer are a
    # narrower fact (the answers do change with other arrays).
    seen = [
        Seen(
            FACTOR if array else RELATION,
            f"two inputs that differ in {name} alone get the same answer from you, and their right answers differ"
            if array
            else f"your answers do not change with {name} (two inputs that differ in {name} alone get the "
            f"same answer from you, and their right answers differ)",
        )
        for name, array in ignored.items()
    ]
    return seen + [
        Seen(
            FITTED,
            f"two inputs that differ in {name} alone are wrong by the same amounts"
            if array
            else f"your error does not change with {name} (two inputs that differ in {name} alone are wrong by "
            "the same amounts)",
        )
        for name, array in unchanged.items()
        if name not in ignored
    ]


def _same_error(got_a: Any, want_a: Any, got_b: Any, want_b: Any, answers: Answers) -> bool:
    """Are two answers of one shape both wrong, by the same finite amounts, where their right answers differ?"""
    got_a, want_a, got_b, want_b = (_plain(v) for v in (got_a, want_a, got_b, want_b))
    if not all(isinstance(v, np.ndarray) for v in (got_a, want_a, got_b, want_b)):
        return False
    if not (got_a.shape == want_a.shape == got_b.shape == want_b.shape) or not got_a.size:
        return False
    if answers.same(got_a, want_a) or answers.same(got_b, want_b) or answers.same(want_a, want_b):
        return False
    error_a, error_b = got_a - want_a, got_b - want_b
    if not (np.isfinite(error_a).all() and np.isfinite(error_b).all()):
        return False
    scale = answers.atol + answers.rtol * float(max(np.max(np.abs(want_a)), np.max(np.abs(want_b))))
    return bool(np.all(np.abs(error_a - error_b) <= scale))
