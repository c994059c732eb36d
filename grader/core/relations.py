"""How a wrong answer relates to the right one: relations read from a student's answers, catalogue-free.

A relation maps the right answer (or the call's inputs) to a candidate answer: the log of the right
answer, the right answer reversed, times a factor that follows a length, the right answer for
``action - 1``, the right answer with two inputs swapped... It holds on a wrong answer when that answer
equals the candidate everywhere, an infinity or NaN only where the candidate has the same (a tolerance
of ``rtol * inf`` would make every number equal to inf). It is **said** only when it explains at least
two finite, distinct wrong values on at least two wrong answers (:func:`said`): right answers of 0 and
wrong answers of inf are no log of anything, ones where the right answer is zeros no exp of it, and any
wrong single number is "the right one times a factor" or "plus a constant".

Each statement carries a rank: how much it narrows the cause (:data:`OTHER_INPUT` first, the generic
counts last); :mod:`grader.core.observation` orders what it says by it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from grader.core.diagnosis import Answers, Call, Raised, _plain, run

# How much a statement narrows the cause, the narrowest first: the right answer of another input (another
# reduction, action - 1, two inputs swapped); a relation with no constant of its own (the log, reversed,
# reduced over the other axis); where the error sits; an input factor it follows; a relation with a constant
# of its own per answer (times a factor, plus a constant); what most mistakes share (several rows, a number
# not 0 or 1, the wrong shape); the count of wrong answers is said last of all.
OTHER_INPUT, RELATION, PLACE, FACTOR, FITTED, BROAD = range(6)
# Arguments read as masks or flags (besides boolean arrays): inverted, a mask swaps its 0 and 1.
FLAG_ARGUMENTS = ("mask", "token_mask", "terminated", "trace_cuts", "dones", "done")
# Evidence a relation needs: wrong answers it explains a finite wrong value of, and distinct such values.
MIN_ANSWERS = 2
MIN_VALUES = 2
# Runs of the reference on other inputs (neighbouring values, swapped arguments...) per observation: the
# relations are tried on the smallest wrong answers first and each stops at the first answer it misses.
RERUNS = 60


@dataclass(frozen=True)
class Seen:
    """One statement of an observation and how much it narrows the cause (lower: said earlier)."""

    rank: int
    text: str


@dataclass
class Piece:
    """One wrong part of a wrong answer, as compared: the student's ``got`` and the right ``want``.

    ``part`` names a field, key or tuple array ("" for the whole answer); ``others`` are the right
    values of the answer's other parts; ``args`` the call's arguments by name ({} when they do not bind).
    """

    call: Call
    part: str
    got: Any
    want: Any
    others: dict = field(default_factory=dict)
    args: dict = field(default_factory=dict)


# -- evidence ---------------------------------------------------------------------------------------
def explained(
    got: Any, want: Any, candidate: Any, answers: Answers, within: np.ndarray | None = None
) -> np.ndarray | None:
    """The finite wrong values of ``got`` that ``candidate`` explains; None when it is not ``candidate``.

    ``got`` equals ``candidate`` everywhere within the tolerance, a non-finite value only where the
    candidate has the same one, or lies where ``within`` is true (a relation's image of the right
    answer's tolerance: the log of a probability that is 0 within the tolerance is any number far
    enough below 0). The values explained are those where ``got`` differs from ``want`` and ``got``,
    ``want`` and the candidate are finite (where the candidate equals the right answer, it explains no
    wrong value).
    """
    if isinstance(candidate, (float, np.floating)):
        candidate = np.asarray(candidate, dtype=float)
    if not (isinstance(got, np.ndarray) and isinstance(candidate, np.ndarray)) or got.shape != candidate.shape:
        return None
    with np.errstate(all="ignore"):
        close = np.isclose(got, candidate, rtol=answers.rtol, atol=answers.atol, equal_nan=True)
        if within is not None:
            close |= within
        if not close.all():
            return None
        keep = np.isfinite(got) & np.isfinite(candidate)
        if isinstance(want, np.ndarray) and want.shape == got.shape:
            keep &= np.isfinite(want) & ~np.isclose(got, want, rtol=answers.rtol, atol=answers.atol, equal_nan=True)
    return got[keep]


def _image(function: Callable, got: np.ndarray, want: np.ndarray, answers: Answers) -> np.ndarray:
    """Where ``got`` lies in a monotone ``function``'s image of the right answer's tolerance interval
    (outside its domain, the image reaches to infinity): what a right answer known only to within the
    tolerance allows, e.g. the log of a probability that underflowed to 0."""
    tolerance = answers.atol + answers.rtol * np.abs(want)
    with np.errstate(all="ignore"):
        a, b = function(want - tolerance), function(want + tolerance)
        low = np.where(np.isnan(a), -np.inf, np.fmin(a, b))
        high = np.where(np.isnan(b), np.inf, np.fmax(a, b))
        if function is np.reciprocal:  # across 0 the reciprocal reaches both infinities
            across = (want - tolerance <= 0) & (want + tolerance >= 0)
            return np.where(
                across, np.abs(got) >= 1 / np.maximum(np.abs(want) + tolerance, 1e-300), (got >= low) & (got <= high)
            )
        return (got >= low) & (got <= high)


def _every(explain: Callable[[Piece], np.ndarray | None], pieces: list[Piece]) -> list[np.ndarray | None]:
    """``explain`` of each piece, stopping at the first it does not hold on (a relation must hold on all)."""
    found = []
    for piece in pieces:
        found.append(explain(piece))
        if found[-1] is None:
            break
    return found


def said(found: list[np.ndarray | None]) -> bool:
    """Does a relation hold on every wrong answer (``found``: :func:`explained` of each), explaining at least
    :data:`MIN_VALUES` finite, distinct wrong values on at least :data:`MIN_ANSWERS` of them?"""
    if not found or any(f is None for f in found):
        return False
    values = [f.ravel() for f in found if f.size]
    if len(values) < MIN_ANSWERS:
        return False
    return np.unique(np.round(np.concatenate(values), 9)).size >= MIN_VALUES


def _leaves(value: Any) -> list:
    """The arrays of a plain answer in order (a record's fields, a tuple's arrays), or [value]."""
    if isinstance(value, dict):
        return [v for k, v in value.items() if k]
    if isinstance(value, list):
        return list(value)
    return [value]


def explained_whole(got: Any, want: Any, candidate: Any, answers: Answers) -> np.ndarray | None:
    """:func:`explained` over every part of a whole answer (a record, a tuple of arrays)."""
    if isinstance(candidate, Raised) or type(got) is not type(candidate):
        return None
    if isinstance(got, dict) and got.keys() != candidate.keys():
        return None
    leaves, candidates, wants = _leaves(got), _leaves(candidate), _leaves(want)
    if len(leaves) != len(candidates):
        return None
    found = []
    for index, (g, c) in enumerate(zip(leaves, candidates)):
        w = wants[index] if len(wants) == len(leaves) else None
        values = explained(g, w, c, answers)
        if values is None:
            return None
        found.append(values.ravel())
    return np.concatenate(found) if found else np.zeros(0)


# -- relations without a constant of their own --------------------------------------------------------
def _terms_from_end(w: np.ndarray) -> np.ndarray:
    return w - np.concatenate([w[..., 1:], np.zeros_like(w[..., :1])], axis=-1)


def _shifted(w: np.ndarray, got: np.ndarray, later: bool) -> np.ndarray:
    """The right answer moved one position later (or earlier) along the last axis; the position left
    over keeps the student's value (the statement says nothing of it)."""
    if later:
        return np.concatenate([got[..., :1], w[..., :-1]], axis=-1)
    return np.concatenate([w[..., 1:], got[..., -1:]], axis=-1)


# (family, template, candidate(want, got)). Within a family the first that is said is the only one said
# (an answer rounded down is often rounded towards zero too; the absolute value of a negative answer is its
# sign flipped). A template's {right} reads "the right answer", or "its right value" for one field.
ELEMENTWISE: tuple[tuple[str, str, Callable], ...] = (
    ("log", "the log of {right}", np.log),
    ("exp", "the exp of {right}", np.exp),
    ("reciprocal", "the reciprocal of {right}", np.reciprocal),
    ("sign", "{right} with its sign flipped", np.negative),
    ("sign", "the absolute value of {right}", np.abs),
    ("complement", "one minus {right}", lambda w: 1.0 - w),
    ("square", "the square of {right}", np.square),
    ("square", "the square root of {right}", np.sqrt),
    ("round", "{right} rounded down to a whole number", np.floor),
    ("round", "{right} rounded up to a whole number", np.ceil),
    ("round", "{right} rounded towards zero", np.trunc),
    ("round", "{right} rounded to the nearest whole number", np.rint),
)
# The monotone ones: a right answer known to within the tolerance allows an interval of their values (:func:`_image`).
MONOTONE = (np.log, np.exp, np.reciprocal, np.sqrt)
REARRANGED: tuple[tuple[str, str, Callable], ...] = (
    ("order", "{right} reversed", lambda w, g: w[..., ::-1]),
    (
        "shift",
        "{right} rolled by one position (each element holds the right value of the one before it, the "
        "first the last's)",
        lambda w, g: np.roll(w, 1, axis=-1),
    ),
    (
        "shift",
        "{right} rolled back by one position (each element holds the right value of the one after it, the "
        "last the first's)",
        lambda w, g: np.roll(w, -1, axis=-1),
    ),
    (
        "shift",
        "{right} shifted one position later (each element holds the right value of the one before it)",
        lambda w, g: _shifted(w, g, later=True),
    ),
    (
        "shift",
        "{right} shifted one position earlier (each element holds the right value of the one after it)",
        lambda w, g: _shifted(w, g, later=False),
    ),
    (
        "transposed",
        "{right} transposed",
        lambda w, g: w.T if w.ndim == 2 and w.shape[0] == w.shape[1] else None,
    ),
    ("running", "the running total of {right} from the start", lambda w, g: np.cumsum(w, axis=-1)),
    (
        "running",
        "the running total of {right} from the end",
        lambda w, g: np.cumsum(w[..., ::-1], axis=-1)[..., ::-1],
    ),
    (
        "terms",
        "the terms of {right}, not added up (their running total from the start is {right})",
        lambda w, g: np.diff(w, axis=-1, prepend=0.0),
    ),
    (
        "terms",
        "the terms of {right}, not added up (their running total from the end is {right})",
        lambda w, g: _terms_from_end(w),
    ),
)


def _explain(function: Callable, piece: Piece, answers: Answers) -> np.ndarray | None:
    """:func:`explained` for one relation of :data:`ELEMENTWISE` (``function(want)``) or :data:`REARRANGED`
    (``function(want, got)``) on one wrong piece."""
    want, got = piece.want, piece.got
    if not (isinstance(want, np.ndarray) and isinstance(got, np.ndarray)) or want.shape != got.shape:
        return None
    if function in REARRANGED_FUNCTIONS and (want.ndim == 0 or want.shape[-1] < 2):
        return None
    rearranged = function in REARRANGED_FUNCTIONS
    with np.errstate(all="ignore"):
        candidate = function(want, got) if rearranged else np.asarray(function(want), dtype=float)
    if candidate is None:
        return None
    within = _image(function, got, want, answers) if function in MONOTONE else None
    found = explained(got, want, candidate, answers, within)
    if found is None or function not in SHIFT_REGIONS:
        return found
    # A shift says nothing of the position it leaves over (it holds the student's own value): no evidence there.
    region = SHIFT_REGIONS[function]
    return explained(got[..., region], want[..., region], candidate[..., region], answers)


REARRANGED_FUNCTIONS = {f for _, _, f in REARRANGED}
SHIFT_REGIONS = {REARRANGED[3][2]: slice(1, None), REARRANGED[4][2]: slice(None, -1)}


def _with_others(piece: Piece) -> list[tuple[str, str, Any]]:
    """Candidates from the answer's other fields: what another field should be, or the elementwise
    maximum or minimum of two of them (a pessimistic term that takes the larger branch)."""
    if not (isinstance(piece.got, np.ndarray) and piece.others):
        return []
    shaped = {k: v for k, v in piece.others.items() if isinstance(v, np.ndarray) and v.shape == piece.got.shape}
    found = [(f"is {k}", f"what {k} should be", v) for k, v in shaped.items()]
    names = list(shaped)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            found.append(
                (
                    f"max {a} {b}",
                    f"the elementwise maximum of what {a} and {b} should be",
                    np.maximum(shaped[a], shaped[b]),
                )
            )
            found.append(
                (
                    f"min {a} {b}",
                    f"the elementwise minimum of what {a} and {b} should be",
                    np.minimum(shaped[a], shaped[b]),
                )
            )
    return found


# -- relations across the shape: flattened, reduced over the other axis, not reduced ------------------------
def _reshaped(piece: Piece) -> list[tuple[str, str, Any]]:
    """Candidates of another shape than the right answer's, each with its words."""
    got, want = piece.got, piece.want
    if not (isinstance(want, np.ndarray) and isinstance(got, np.ndarray)):
        return []
    if got.shape == want.shape:
        # A batch as long as its rows: reduced over the other axis, its total is still the right total.
        square = any(isinstance(v, np.ndarray) and v.shape == (want.size, want.size) for v in piece.args.values())
        return [("axis", AXIS, None)] if square and got.ndim == 1 and want.size > 1 else []
    found = []
    if want.ndim == 2 and got.shape == want.shape[::-1]:
        found.append(("transposed", "{right} transposed", want.T))
    if got.ndim == 1 and want.ndim > 1:
        found.append(("flat:all", "{right} flattened into one vector", want.ravel()))
        mask = _mask(piece.args)
        if mask is not None and mask.shape == want.shape:
            found.append(("flat:mask", "{right}'s values where the mask is set, in one flat vector", want[mask != 0]))
    if got.ndim == want.ndim + 1 and got.shape[:-1] == want.shape:
        found.append(("unreduced", "has one axis more than {right}: summed over it, it gives {right}", None))
    if got.ndim == 0 and want.ndim >= 1 and want.size > 1:
        found.append(("total:sum", "one number: the total of {right}", np.sum(want)))
        found.append(("total:mean", "one number: the mean of {right}", np.mean(want)))
    if got.ndim == 1 and want.ndim == 1:
        for name, value in piece.args.items():
            shape = np.shape(value) if isinstance(value, np.ndarray) else ()
            if len(shape) == 2 and shape == (want.size, got.size):
                found.append(("axis", AXIS, None))
                break
    return found


AXIS = (
    "has one value per column of the batch where the contract gives one per row: it is reduced over the other "
    "axis (its total is the right total)"
)


def _reshaped_explained(key: str, got: np.ndarray, want: np.ndarray, candidate: Any, answers: Answers):
    # Its values are all wrong (the shape is): each explains one when the sums agree.
    if not (np.isfinite(got).all() and np.isfinite(want).all()):
        return None
    if key == "unreduced":
        return got.ravel() if explained(np.sum(got, axis=-1), None, want, answers) is not None else None
    if key == "axis":
        total, right = np.array([np.sum(got)]), np.array([np.sum(want)])
        if explained(total, None, right, answers) is None:
            return None
        # A square batch's answer has the right shape: it holds there, and shows nothing.
        return got.ravel() if got.shape != want.shape else np.zeros(0)
    return explained(np.asarray(got), None, np.asarray(candidate, dtype=float), answers)


# -- relations with a constant of their own -------------------------------------------------------------
def _factor(piece: Piece, answers: Answers) -> tuple[float, np.ndarray] | None:
    """(c, the wrong values explained) when the wrong answer is the right one times c (not 0, 1 or -1)."""
    got, want = piece.got, piece.want
    if not (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)) or got.shape != want.shape:
        return None
    if not (np.isfinite(got).all() and np.isfinite(want).all()):
        return None
    nonzero = np.abs(want) > answers.atol
    if not nonzero.any():
        return None
    c = float(got[nonzero].flat[0] / want[nonzero].flat[0])
    if np.isclose(c, 1.0) or np.isclose(c, -1.0) or np.isclose(c, 0.0, atol=1e-12):
        return None
    values = explained(got, want, c * want, answers)
    return None if values is None else (c, values)


def _offset(piece: Piece, answers: Answers) -> tuple[float, np.ndarray] | None:
    """(c, the wrong values explained) when the wrong answer is the right one plus c (not 0)."""
    got, want = piece.got, piece.want
    if not (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)) or got.shape != want.shape or not got.size:
        return None
    if not (np.isfinite(got).all() and np.isfinite(want).all()):
        return None
    c = float(got.flat[0] - want.flat[0])
    if abs(c) <= answers.atol + answers.rtol * float(np.max(np.abs(want))):
        return None
    values = explained(got, want, want + c, answers)
    return None if values is None else (c, values)


# n's factor formulas: a count used where another belongs (G for G - 1, a mean for a sum...).
COUNT_FORMULAS: tuple[tuple[str, Callable[[float], float]], ...] = (
    ("n", lambda n: n),
    ("1 / n", lambda n: 1 / n),
    ("n - 1", lambda n: n - 1),
    ("1 / (n - 1)", lambda n: 1 / (n - 1)),
    ("n / (n - 1)", lambda n: n / (n - 1)),
    ("(n - 1) / n", lambda n: (n - 1) / n),
)


def _sizes(args: dict) -> dict[str, int]:
    """The counts a factor may follow, by their words: an array's length, a matrix's rows and columns."""
    sizes = {}
    for name, value in args.items():
        if not isinstance(value, np.ndarray):
            continue
        if value.ndim == 1:
            sizes[f"the number of elements of {name}"] = value.shape[0]
        elif value.ndim == 2:
            sizes[f"the number of rows of {name}"] = value.shape[0]
            sizes[f"the number of columns of {name}"] = value.shape[1]
    return sizes


def _fitted(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """Times a factor (one that follows a count, one for every input, or one of each answer's own), plus a
    constant (one for every input, or each answer's own), plus or minus an input."""
    return [
        *_times_factor(pieces, answers),
        *_plus_constant(pieces, answers),
        *_times_powers(pieces, answers),
        *_plus_minus_input(pieces, answers),
    ]


def _times_factor(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """The right answer times a factor: one that follows a count, one for every input, or each answer's own."""
    factors = [_factor(p, answers) for p in pieces]
    if not all(f is not None for f in factors) or not said([v for _, v in factors]):
        return []
    constants = [c for c, _ in factors]
    follows = _follows_count(pieces, constants)
    if follows:
        return [Seen(RELATION, f"{{right}} times {follows}")]
    if np.allclose(constants, constants[0], rtol=1e-9, atol=0):
        return [Seen(RELATION, "{right} times one constant factor, the same for every input")]
    if _confirmed([v for _, v in factors]):
        return [Seen(FITTED, "{right} times a constant factor")]
    return []


def _plus_constant(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """The right answer plus a constant: one for every input, or each answer's own."""
    offsets = [_offset(p, answers) for p in pieces]
    if not all(o is not None for o in offsets) or not said([v for _, v in offsets]):
        return []
    constants = [c for c, _ in offsets]
    if np.allclose(constants, constants[0], rtol=1e-9, atol=answers.atol):
        return [Seen(RELATION, "{right} plus one constant, the same for every input")]
    if _confirmed([v for _, v in offsets]):
        return [Seen(FITTED, "{right} plus a constant")]
    return []


def _times_powers(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """The right answer times a power of a number argument along its last axis (see :data:`POWERS`)."""
    out = []
    for name, value in pieces[0].args.items():
        if isinstance(value, (float, np.floating)) and value not in (0.0, 1.0):
            for power, words in POWERS:
                if said(_every(lambda p: _times_power(p, name, power, answers), pieces)):
                    out.append(Seen(RELATION, "{right} " + words.format(name=name)))
    return out


def _plus_minus_input(pieces: list[Piece], answers: Answers) -> list[Seen]:
    """The right answer plus or minus an array input of its shape."""
    out = []
    for name in pieces[0].args:
        for sign, words in ((-1.0, "minus"), (1.0, "plus")):
            found = []
            for p in pieces:
                value = p.args.get(name)
                if (
                    not (isinstance(value, np.ndarray) and isinstance(p.want, np.ndarray))
                    or value.shape != p.want.shape
                ):
                    found = [None]
                    break
                with np.errstate(all="ignore"):
                    found.append(explained(p.got, p.want, p.want + sign * value.astype(float), answers))
            if said(found):
                out.append(Seen(RELATION, f"{{right}} {words} {name}"))
    return out


# A discount applied once too often, from the wrong end, or missing: the right answer times a power of a number.
POWERS: tuple[tuple[Callable, str], ...] = (
    (lambda base, n: base ** np.arange(n, dtype=float), "times {name} ** t, with t the position"),
    (
        lambda base, n: base ** np.arange(n - 1, -1, -1, dtype=float),
        "times {name} ** (T - 1 - t), with t the position of T",
    ),
    (lambda base, n: base ** -np.arange(n, dtype=float), "divided by {name} ** t, with t the position"),
)


def _times_power(piece: Piece, name: str, power: Callable, answers: Answers) -> np.ndarray | None:
    """The wrong values explained by the right answer times ``name ** t`` along its last axis (a discount
    applied once too often, or from the wrong end)."""
    base, want = piece.args.get(name), piece.want
    if not isinstance(base, (float, np.floating)) or not isinstance(want, np.ndarray) or want.ndim == 0:
        return None
    with np.errstate(all="ignore"):
        return explained(piece.got, want, want * power(float(base), want.shape[-1]), answers)


def _confirmed(found: list[np.ndarray]) -> bool:
    """A constant of each answer's own is a relation only where it explains two distinct wrong values of that
    answer (one to fit it, one to confirm it): on at least :data:`MIN_ANSWERS` answers."""
    return sum(np.unique(np.round(v, 9)).size >= 2 for v in found) >= MIN_ANSWERS


def _follows_count(pieces: list[Piece], constants: list[float]) -> str | None:
    """ "n / (n - 1), with n the number of elements of rewards": a formula of one count that gives every
    answer's factor, the count taking two values or more (one value would fit any constant)."""
    sizes = [_sizes(p.args) for p in pieces]
    for source in sizes[0]:
        counts = [s.get(source) for s in sizes]
        if None in counts or len(set(counts)) < 2:
            continue
        for words, formula in COUNT_FORMULAS:
            with np.errstate(all="ignore"):
                expected = [formula(float(n)) if n > 1 or "n - 1" not in words else np.nan for n in counts]
            if np.allclose(constants, expected, rtol=1e-9, atol=0):
                return f"{words}, with n {source}"
    return None


# -- all relations of the wrong answers to the right ones, said per field --------------------------------
def answer_relations(pieces: list[Piece], answers: Answers, every: set[str] = frozenset({""})) -> list[Seen]:
    """What relates every wrong answer (or every wrong value of one field) to the right one, said once each:
    "each wrong answer is the log of the right answer", "each wrong pessimistic is the elementwise maximum of
    what unclipped and clipped should be". ``every``: the parts an answer has (a relation on all of them is
    said of the whole answer)."""
    parts: dict[str, list[Piece]] = {}
    for p in pieces:
        parts.setdefault(p.part, []).append(p)
    # relation words -> (rank, the parts it holds on)
    holds: dict[str, tuple[int, list[str]]] = {}

    def note(rank: int, words: str, part: str) -> None:
        holds.setdefault(words, (rank, []))[1].append(part)

    for part, group in parts.items():
        for rank, words in _part_relations(group, answers):
            note(rank, words, part)
    out = []
    for words, (rank, on) in holds.items():
        verb = "" if words.startswith("has ") else "is "
        if on == [""] or set(on) == set(every):
            out.append(Seen(rank, f"each wrong answer {verb}" + words.format(right="the right answer")))
        else:
            subject = " and ".join(sorted(on))
            out.append(Seen(rank, f"each wrong value of {subject} {verb}" + words.format(right="its right value")))
    return out


def _part_relations(group: list[Piece], answers: Answers) -> list[tuple[int, str]]:
    """(rank, words) of each relation that holds on every wrong value of one part: elementwise or rearranged
    (one of each family), reshaped, with other fields, or fitted (not after a sign relation)."""
    out: list[tuple[int, str]] = []
    families: set[str] = set()
    for family, words, function in (*ELEMENTWISE, *REARRANGED):
        if family not in families and said(_every(lambda p: _explain(function, p, answers), group)):
            families.add(family)
            out.append((RELATION, words))
    reshaped = [dict((k, (w, c)) for k, w, c in _reshaped(p)) for p in group]
    for key, (words, _) in reshaped[0].items():
        found = []
        for p, options in zip(group, reshaped):
            option = options.get(key)
            found.append(None if option is None else _reshaped_explained(key, p.got, p.want, option[1], answers))
        family = key.split(":")[0]
        if family not in families and said(found):
            families.add(family)
            out.append((RELATION, words))
    others = [dict((k, (w, c)) for k, w, c in _with_others(p)) for p in group]
    for key, (words, _) in others[0].items():
        found = [None if key not in o else explained(p.got, p.want, o[key][1], answers) for p, o in zip(group, others)]
        if said(found):
            out.append((RELATION, words))
    if "sign" not in families:
        out.extend((seen.rank, seen.text) for seen in _fitted(group, answers))
    return out


# -- the right answer of another input ----------------------------------------------------------------------
def _mask(args: dict) -> np.ndarray | None:
    mask = next((args[name] for name in ("mask", "token_mask") if name in args), None)
    return None if mask is None else np.asarray(mask, dtype=float)


def _ids(args: dict) -> set:
    """Integer arguments whose value is among an integer array's elements: token ids (EOS, padding), not counts."""
    arrays = [v for v in args.values() if isinstance(v, np.ndarray) and v.dtype.kind in "iu"]
    return {
        k
        for k, v in args.items()
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and any(np.any(a == v) for a in arrays)
    }


def _reversed_answer(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim:
        return value[..., ::-1]
    if isinstance(value, dict):
        return {k: _reversed_answer(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_reversed_answer(v) for v in value]
    return value


def _neighbours(args: dict) -> list[tuple[str, str, Callable[[dict], tuple[dict, Callable] | None]]]:
    """(key, words, change): inputs next to a call's, each the same change for every call.

    An integer count one smaller or larger (an index counted from 1, a length off by one), two inputs of
    one kind swapped (new and old log-probabilities), every sequence read from the other end (a recursion
    run the wrong way). ``change(args)`` gives the changed arguments and what to apply to the reference's
    answer, or None where the change does not apply.
    """
    return [*_count_steps(args), *_swaps(args), *_inversions(args), *_shifts(args), *_reversal(args)]


Change = Callable[[dict], "tuple[dict, Callable | None] | None"]


def _count_steps(args: dict) -> list[tuple[str, str, Change]]:
    """An integer count (not a token id), or every element of an integer array, one smaller or larger."""
    found = []
    ids = _ids(args)
    for name, value in args.items():
        integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        counts = isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu"
        if not ((integer and name not in ids) or counts):
            continue
        for step, words in ((-1, "- 1"), (1, "+ 1")):
            text = f"{name} {words}" if integer else f"every {name} {'one smaller' if step < 0 else 'one larger'}"

            def change(a, name=name, step=step):
                if name not in a:
                    return None
                return {**a, name: a[name] + step}, None

            found.append((f"{name}{step:+d}", f"each wrong answer is the right answer for {text}", change))
    return found


def _swaps(args: dict) -> list[tuple[str, str, Change]]:
    """Two inputs of one kind swapped (new and old log-probabilities)."""
    found = []
    names = list(args)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if _kind(args[a]) is None or _kind(args[a]) != _kind(args[b]):
                continue

            def swap(x, a=a, b=b):
                if a not in x or b not in x or _kind(x[a]) != _kind(x[b]):
                    return None
                return {**x, a: x[b], b: x[a]}, None

            found.append((f"{a}<->{b}", f"each wrong answer is the right answer with {a} and {b} swapped", swap))
    return found


def _inversions(args: dict) -> list[tuple[str, str, Change]]:
    """A flag array with its 0 and 1 swapped."""
    found = []
    for name, value in args.items():
        if isinstance(value, np.ndarray) and (value.dtype == bool or name in FLAG_ARGUMENTS):

            def invert(x, name=name):
                if not isinstance(x.get(name), np.ndarray):
                    return None
                flags = x[name]
                return {**x, name: ~flags if flags.dtype == bool else 1 - flags}, None

            found.append(
                (
                    f"~{name}",
                    f"each wrong answer is the right answer with {name} inverted (its 0 and 1 swapped)",
                    invert,
                )
            )
    return found


def _shifts(args: dict) -> list[tuple[str, str, Change]]:
    """One float sequence taken from another's next (or previous) step: values read one step off."""
    found = []
    floats = [k for k, v in args.items() if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind == "f"]
    for a in floats:
        for b in floats:
            if a == b or args[a].shape != args[b].shape or args[a].size < 2:
                continue
            for later, words in (
                (True, f"{a}[t] taken from {b}[t + 1] (the last kept)"),
                (False, f"{a}[t] taken from {b}[t - 1] (the first kept)"),
            ):

                def taken(x, a=a, b=b, later=later):
                    if a not in x or b not in x or np.shape(x[a]) != np.shape(x[b]) or np.ndim(x[a]) != 1:
                        return None
                    moved = np.concatenate([x[b][1:], x[a][-1:]]) if later else np.concatenate([x[a][:1], x[b][:-1]])
                    return {**x, a: moved}, None

                found.append((f"{a}<-{b}{later}", f"each wrong answer is the right answer with {words}", taken))
    return found


def _reversal(args: dict) -> list[tuple[str, str, Change]]:
    """Every sequence read from the other end, the answer reversed back (a recursion run the wrong way)."""
    arrays = [v for v in args.values() if isinstance(v, np.ndarray)]
    if not (arrays and all(v.ndim == 1 for v in arrays) and len({v.shape for v in arrays}) == 1 and arrays[0].size > 1):
        return []

    def reverse(x):
        if not all(v.ndim == 1 for v in x.values() if isinstance(v, np.ndarray)):
            return None
        return {k: v[::-1] if isinstance(v, np.ndarray) else v for k, v in x.items()}, _reversed_answer

    return [
        (
            "reversed",
            "each wrong answer is what the right computation gives on the sequence read from the other end "
            "(the inputs reversed, the result reversed back)",
            reverse,
        )
    ]


def _kind(value: Any) -> tuple | None:
    """What two swappable inputs share: an array's shape and kind of number, or a plain number's type."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.kind)
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return ("number", isinstance(value, (float, np.floating)))
    return None


def _cost(args: dict) -> tuple:
    """What orders the calls from the cheapest to rerun: the elements of the arrays, then the plain numbers
    (counts of groups, of responses)."""
    arrays = sum(np.size(v) for v in args.values() if isinstance(v, np.ndarray))
    numbers = sum(abs(float(v)) for v in args.values() if isinstance(v, (int, np.integer)) and not isinstance(v, bool))
    return arrays, numbers


def _limits(calls: list[dict]) -> dict[str, float]:
    """The largest magnitude of each plain number argument among the tests' calls."""
    limits: dict[str, float] = {}
    for args in calls:
        for name, value in args.items():
            if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
                limits[name] = max(limits.get(name, 0.0), abs(float(value)))
    return limits


def _within(args: dict, limits: dict[str, float]) -> bool:
    """Does a neighbouring input stay within the tests' own numbers (one more at most)? Two numbers swapped may
    turn a seed into a group size: a reference run must not cost more than the tests' own runs."""
    return all(
        abs(float(value)) <= limits.get(name, 0.0) + 1
        for name, value in args.items()
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    )


def other_inputs(
    reference: Callable, wrong: list[tuple[Call, Any, dict]], calls: list[tuple[Call, dict]], answers: Answers
) -> list[Seen]:
    """Each wrong answer is the right answer of another input: :func:`_neighbours`, and for a word argument
    (a reduction), another of its values the calls used ("your answers for reduction='token_mean' are the
    right answers for reduction='sequence_mean'"). Said only when it holds for every wrong answer, with the
    evidence of :func:`said`; at most :data:`RERUNS` runs of the reference."""
    if len(wrong) < MIN_ANSWERS:
        return []
    wrong = sorted(wrong, key=lambda w: _cost(w[2]))
    words = {
        name: list(dict.fromkeys(a[name] for _, a in calls if isinstance(a.get(name), str)))
        for name, value in wrong[0][2].items()
        if isinstance(value, str)
    }
    alive = {key: (text, change) for key, text, change in _neighbours(wrong[0][2])}
    alive.update(_word_changes(words))
    found = _rerun(reference, wrong, alive, _limits([a for _, a in calls]), answers)
    if not alive:
        return []
    out = [Seen(OTHER_INPUT, alive[k][0]) for k in alive if ":" not in k and said(found[k])]
    out.extend(_word_relations(words, wrong, alive, found))
    return out


def _word_changes(words: dict[str, list[str]]) -> dict[str, tuple[str, Callable]]:
    """A word argument changed to another of the values the calls used; calls with another word are skipped."""
    changes = {}
    for name, values in words.items():
        for s in values:
            for v in values:
                if s != v:

                    def change(x, name=name, s=s, v=v):
                        return ({**x, name: v}, None) if x.get(name) == s else "skip"

                    changes[f"{name}:{s}->{v}"] = (f"{name}='{s}'->'{v}'", change)
    return changes


def _rerun(
    reference: Callable, wrong: list[tuple[Call, Any, dict]], alive: dict, limits: dict[str, float], answers: Answers
) -> dict[str, list]:
    """Each change's explained values, running the reference on each wrong call's changed input (at most
    :data:`RERUNS` runs in all, never beyond the tests' own numbers); a change that fails once is dropped from
    ``alive``, which is emptied when none is left."""
    found: dict[str, list] = {key: [] for key in alive}
    budget = RERUNS
    for call, want, args in wrong:
        for key in list(alive):
            text, change = alive[key]
            changed = change(args)
            if changed == "skip":
                continue
            if changed is None or budget <= 0 or not _within(changed[0], limits):
                del alive[key]
                continue
            budget -= 1
            new_args, after = changed
            answer = run(reference, Call((), new_args, None))
            candidate = _plain(after(answer) if after is not None and not isinstance(answer, Raised) else answer)
            values = explained_whole(_plain(call.outcome), _plain(want), candidate, answers)
            if values is None:
                del alive[key]
            else:
                found[key].append(values)
        if not alive:
            break
    return found


def _word_relations(
    words: dict[str, list[str]], wrong: list[tuple[Call, Any, dict]], alive: dict, found: dict[str, list]
) -> list[Seen]:
    """Every wrong call with a word argument is the right answer for another of its words, one for each word."""
    out = []
    for name in words:
        used = [w[2].get(name) for w in wrong]
        mapping = {}
        for k in alive:
            if k.startswith(f"{name}:"):
                s, v = k[len(name) + 1 :].split("->")
                if s in used:
                    mapping.setdefault(s, (v, k))
        if not mapping or any(u not in mapping for u in used):
            continue
        values = [v for s, (_, k) in mapping.items() for v in found[k]]
        if said(values):
            pairs = [f"for {name}='{s}' are the right answers for {name}='{v}'" for s, (v, _) in mapping.items()]
            out.append(Seen(OTHER_INPUT, "your answers " + ", and ".join(pairs)))
    return out


def bound(reference: Callable, call: Call) -> dict | None:
    """A call's arguments by name, defaults included, or None when they do not bind."""
    try:
        arguments = inspect.signature(reference).bind(*call.args, **call.kwargs)
    except TypeError:
        return None
    arguments.apply_defaults()
    return {k: _array(v) for k, v in arguments.arguments.items()}


def _array(value: Any) -> Any:
    """A list or tuple of numbers as the array it stands for (a call may pass a list where arrays are meant)."""
    if not isinstance(value, (list, tuple)):
        return value
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return value
    return array if array.dtype.kind in "biuf" else value
