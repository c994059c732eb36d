"""Helpers for the autograder tests: checks whose failures speak to students.

A failed check raises :class:`Misconception` with a message that names the likely
mistake ("the recursion continues across a trace cut"). Messages never contain the
expected values of a hidden case; shapes and types, which follow from the inputs
and the contract, may be mentioned.
"""

from __future__ import annotations

import functools
import inspect
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import yaml

from grader.core import cache
from grader.core.checks import CONTEXT, Evidenced, Misconception, Unspecific
from grader.core.course import load_course
from grader.core.submission import StudentError
from grader.worker import runtime

# The checks' exceptions and their context live in the core (grader.core.checks: the grading plugin reads
# them); the tests import them from here, with the helpers below.


def accept_other() -> None:
    """Say that the running check accepted an answer the reference does not give, one of two right rules
    (the module's margin near the clip interval's end). The calls of such a test, when it passes, are no
    evidence of what is right: the diagnosis, which compares answers with the reference's, keeps none of
    them (grader.core.plugin)."""
    CONTEXT.accepted_other = True


def _course():
    if CONTEXT.course is None:
        CONTEXT.course = load_course(check_files=False)
    return CONTEXT.course


def tolerance(function: str | None = None):
    """Tolerance of the exercise under test (course.yaml)."""
    name = function or CONTEXT.function
    course = _course()
    try:
        return course.exercise(name).tolerance
    except KeyError:
        return course.tolerance


def exercise_params(function: str | None = None) -> dict:
    """The ``params`` mapping of the exercise under test (course.yaml), e.g. lab thresholds."""
    return dict(_course().exercise(function or CONTEXT.function).params)


def property_examples() -> int:
    return _course().property_examples


def course_code(module: str):
    """The course's own ``module`` (a lab's training loop, the environment) as students receive it, in
    the grader's process: what a visible check runs, never a reference solution (a student kit has none).

    A course whose copy cannot be loaded fails the check with a sentence that says so (the student's
    code is not to blame), not with a traceback.
    """
    try:
        return _course().released_module(module)
    except Exception as exc:  # any failure to load course code is the course's, said in one line
        raise AssertionError(
            f"the course's {module}.py could not be loaded ({type(exc).__name__}: {exc}); "
            "reinstall the course's kit (its README.txt says how)"
        ) from None


# -- checks ------------------------------------------------------------------------
def expect(condition: Any, message: str) -> None:
    """Fail with ``message`` unless ``condition`` holds."""
    if not condition:
        raise Misconception(message)


def _type_name(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype}"
    return type(value).__name__


def as_numeric(value: Any, what: str = "the result") -> np.ndarray:
    """``value`` as a float array, or a Misconception saying what came back instead."""
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise Misconception(f"{what} should be numeric, but it is {_type_name(value)}")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise Misconception(f"{what} should be numeric, but it is {_type_name(value)}") from None
    return array


def expect_close(
    actual: Any,
    expected: Any,
    message: str,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    what: str = "the result",
) -> None:
    """Fail with ``message`` unless ``actual`` matches ``expected`` in shape and value.

    NaN must sit where the expected value has NaN; infinities must match exactly.
    """
    tol = tolerance()
    rtol = tol.rtol if rtol is None else rtol
    atol = tol.atol if atol is None else atol
    got = as_numeric(actual, what)
    want = np.asarray(expected, dtype=float)
    if got.shape != want.shape:
        raise Misconception(f"{message} ({what} has shape {got.shape}, the contract gives {want.shape})")
    if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        raise Misconception(message)


def expect_right(actual: Any, expected: Any, message: str, **kwargs) -> None:
    """:func:`expect_close` for the second half of a pair, failing with :class:`Unspecific`.

    A probe that a body doing no work would pass (zeros for a constant group, the same answer
    to every input) also checks the nearest input where the right answer is not trivial; a
    failure there says the answer is wrong without naming a mistake.
    """
    try:
        expect_close(actual, expected, message, **kwargs)
    except Unspecific:
        raise
    except Misconception as failure:
        raise Unspecific(str(failure)) from None


def expect_observed(condition: Any, message: str) -> None:
    """Fail with ``message`` (as :class:`Evidenced`) unless ``condition``, a property of the student's
    answers alone, holds: the same seed repeats, different seeds differ, a spread shrinks. The
    message must state only that property (and what to do), no cause beyond it."""
    if not condition:
        raise Evidenced(message)


def expect_default(
    without: Any,
    given: Any,
    want: Any,
    argument: str,
    value: Any,
    meaning: str = "",
    compare: Callable[[Any, Any, str], None] | None = None,
) -> None:
    """A call that leaves ``argument`` out answers right: as its docstring's default ``value`` does.

    ``without`` is the student's answer to the call without ``argument``, ``given`` their answer to the same
    call with ``argument=value``, ``want`` the right answer (make both calls before checking). The message
    names only what their answers show: when the two calls answer differently, the default is not ``value``
    (``meaning`` says what that value stands for, e.g. "the interval [0.8, 1.2]"); when they answer alike, the
    default is used and what differs is computed with it, so the message does not blame the default.
    ``compare(got, want, message)`` defaults to :func:`expect_close`.
    """
    compare = compare or expect_close
    try:
        compare(without, want, "")
        return
    except Misconception:
        pass
    default = f"{argument}={value}"
    try:
        compare(without, given, "")
    except Misconception:
        raise Misconception(
            f"called without {argument}, your function answers otherwise than with {default} given: the default "
            f"of {argument} must be the docstring's {value}" + (f" ({meaning})" if meaning else "")
        ) from None
    raise Misconception(
        f"called without {argument}, the answer is wrong, and the same as with {default} given: the default is "
        "used, and what differs is computed with it"
    )


def expect_shape(actual: Any, shape: tuple, message: str, what: str = "the result") -> np.ndarray:
    got = as_numeric(actual, what)
    if got.shape != tuple(shape):
        raise Misconception(f"{message} ({what} has shape {got.shape}, the contract gives {tuple(shape)})")
    return got


def expect_float(actual: Any, message: str, what: str = "the result") -> float:
    """A scalar result (Python or numpy number, or a 0-d array) as a float."""
    got = as_numeric(actual, what)
    if got.shape != ():
        raise Misconception(f"{message} ({what} should be a single number, it has shape {got.shape})")
    return float(got)


def expect_raises(exception: type, function: Callable, *args, message: str, **kwargs) -> None:
    """Call ``function``; fail with ``message`` unless it raises ``exception``."""
    try:
        function(*args, **kwargs)
    except exception:
        return
    except StudentError as error:
        raise Misconception(f"{message} (it raised {error.error_type} instead of {exception.__name__})") from None
    raise Misconception(message)


def expect_success(function: Callable, *args, message: str, **kwargs) -> Any:
    """Call a student function; if it raises, fail with ``message`` and the error it raised."""
    try:
        return function(*args, **kwargs)
    except StudentError as error:
        raise Misconception(f"{message} ({error.describe()})") from None


# numpy's words for a write into a read-only array ("assignment destination is read-only", "output
# array is read-only", "sort array is read-only", "cannot set WRITEABLE flag ...").
READ_ONLY_ERRORS = ("read-only", "WRITEABLE")


def expect_inputs_unchanged(function, *args, message: str | None = None, **kwargs) -> Any:
    """Call a student function on read-only arrays; fail with ``message`` if it writes into them.

    The worker hands the function arrays that numpy cannot make writeable again, so an in-place
    write raises in the student's code and shows in the call's outcome: nothing the worker
    reports about the inputs decides this check (the worker runs in the student's process).
    Another error the function raises fails the test as it is.
    """
    message = message or f"{function.__name__} modifies its input arrays in place; work on copies"
    try:
        return function.call_with_readonly_inputs(*args, **kwargs)
    except StudentError as error:
        # The error's text comes from the student's process: it can only cost them this check.
        if isinstance(error, ValueError) and any(word in str(error) for word in READ_ONLY_ERRORS):
            raise Misconception(message) from None
        raise


# -- masked log-probabilities -----------------------------------------------------------
MASKED_LEAK = (
    "a -inf or nan log-prob at a masked position leaks through multiplication by the mask (0 * -inf "
    "is nan, and so is -inf - -inf): masked positions must be ignored entirely, e.g. with np.where"
)

# With every position at 1, a result that counts nothing is all a probe sees: an inverted mask
# gives it, and so does a body that computes nothing yet. Both are named.
MASK_INVERTED = (
    "with every position of the mask at 1, the result counts no position: either the mask is used "
    "inverted (1 marks a response token, which counts, and 0 a prompt or padding position, which is "
    "ignored) or nothing is computed yet"
)
MASK_IGNORED = "the mask is ignored: positions where it is 0 (prompt, padding) must not count"

# (new, old) log-prob pairs for masked positions, used in turn: both -inf; a nan; a -inf
# old log-prob (an infinite ratio).
_MASKED_POISON = ((-np.inf, -np.inf), (np.nan, -1.0), (0.0, -np.inf), (-np.inf, -np.inf))


def expect_masked_ignored(
    poisoned: Any,
    clean: Any,
    want: Any,
    wrong: str,
    compare: Callable[[Any, Any, str], None] | None = None,
    leak: str = MASKED_LEAK,
) -> None:
    """A function's answer on poisoned masked positions (:func:`poison_masked`) equals its answer on
    the clean ones (else :data:`MASKED_LEAK`), and that answer is right (else ``wrong``, as
    :class:`Unspecific`).

    The pair keeps a body that answers the same to everything from passing, and keeps a
    function that only computes wrong from being told that masked positions leak.
    ``compare(got, want, message)`` defaults to :func:`expect_close`; ``leak`` is the message of a leak
    (:data:`MASKED_LEAK`). Where ignoring non-finite masked values is a course rule beyond the module's
    code, the test is marked ``course_rule`` and the plugin says so (grader.core.rules).
    """
    compare = compare or expect_close
    compare(poisoned, clean, leak)
    try:
        compare(clean, want, wrong)
    except Misconception as failure:
        raise Unspecific(str(failure)) from None


def log_prob_args(new: Any, old: Any, mask: Any, **more) -> dict:
    """Keyword arguments ``new_log_probs``, ``old_log_probs``, ``mask`` as float arrays, plus ``more``."""
    return dict(
        new_log_probs=np.asarray(new, dtype=float),
        old_log_probs=np.asarray(old, dtype=float),
        mask=np.asarray(mask, dtype=float),
        **more,
    )


def poison_masked(new: Any, old: Any, mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """Copies of ``new`` and ``old`` with non-finite values wherever ``mask`` is 0.

    The masked positions, in row-major order, get the pairs of ``_MASKED_POISON`` in
    turn. A correct function ignores masked positions, so it must give on the
    poisoned arrays what it gives on the clean ones (if not: :data:`MASKED_LEAK`).
    """
    new, old = np.array(new, dtype=float), np.array(old, dtype=float)
    masked = np.flatnonzero(np.asarray(mask) == 0)
    for k, index in enumerate(masked):
        new.flat[index], old.flat[index] = _MASKED_POISON[k % len(_MASKED_POISON)]
    return new, old


# -- worked examples ---------------------------------------------------------------
@dataclass(frozen=True)
class WorkedExample:
    """One worked example of the seeds, with its derivation.

    ``edge``: an edge case that a body doing no work reproduces (a constant group's zeros),
    so it counts with the contract (see :func:`example_cases`), not as a worked example.
    """

    function: str
    name: str
    source: str
    derivation: str
    args: dict
    expected: Any
    edge: bool = False

    def __str__(self) -> str:  # used as the pytest id
        return self.name


_examples_cache: dict[str, dict] = {}


def worked_examples(function: str) -> list[WorkedExample]:
    """The worked examples of ``function`` from autograder-tests/worked_examples.yaml."""
    path = _course().tests_dir / "worked_examples.yaml"
    key = str(path)
    if key not in _examples_cache:
        _examples_cache[key] = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    entries = _examples_cache[key].get(function, [])
    return [
        WorkedExample(
            function=function,
            name=e["name"],
            source=e.get("source", ""),
            derivation=e.get("derivation", ""),
            args={k: _as_argument(v) for k, v in dict(e.get("args", {})).items()},
            expected=e.get("expected"),
            edge=bool(e.get("edge", False)),
        )
        for e in entries
    ]


def example_cases(function: str) -> list:
    """The worked examples of ``function`` as pytest parameters, each marked with its kind.

    Use as ``@pytest.mark.parametrize("case", example_cases("f"))``: an ordinary example is
    marked ``example`` (it gates the contract's points, see grader.core.results), an edge
    example ``contract``.
    """
    return [
        pytest.param(case, id=case.name, marks=pytest.mark.contract if case.edge else pytest.mark.example)
        for case in worked_examples(function)
    ]


def _as_argument(value: Any) -> Any:
    """YAML lists become numpy arrays (the usual way the functions are called)."""
    return np.array(value) if isinstance(value, list) else value


def expect_example(case: WorkedExample, got: Any, expected: Any = None, mask: Any = None) -> None:
    """Fail unless ``got`` reproduces the worked example ``case`` (``expected``: default its own).

    A worked example fails for many mistakes, so the message names none (the diagnosis
    does, when one known mistake explains every failure); it says what differs, never a
    value: which named parts (``got`` and ``expected`` as dicts of fields, terms or keys)
    and, within an array, which positions, or whether masked or response positions
    (``mask``: by default the example's ``mask`` or ``token_mask`` argument).
    """
    expected = case.expected if expected is None else expected
    mask = mask if mask is not None else case.args.get("mask", case.args.get("token_mask"))
    named = isinstance(expected, dict)
    wrong = []
    for name, want in expected.items() if named else [("", expected)]:
        want = np.asarray(want, dtype=float)
        have = as_numeric(got[name] if named else got, name or "the result")
        if have.shape != want.shape:
            wrong.append(f"{name or 'the result'} has shape {have.shape}, the contract gives {want.shape}")
        elif not _close(have, want):
            where = difference(have, want, mask)
            wrong.append(f"{name} is wrong" + (f" ({where})" if where else "") if named else where)
    if wrong:
        details = "; ".join(w for w in wrong if w)
        raise Misconception(
            f"does not reproduce the module's worked example '{case.name}'" + (f": {details}" if details else "")
        )


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    tol = tolerance()
    return bool(np.allclose(got, want, rtol=tol.rtol, atol=tol.atol, equal_nan=True))


def difference(got: np.ndarray, want: np.ndarray, mask: Any = None) -> str:
    """Where ``got`` and ``want`` (same shape) differ, in words that show no value ("" for one number)."""
    tol = tolerance()
    off = ~np.isclose(got, want, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    notes = []
    if mask is not None and np.shape(mask) == got.shape:
        masked = np.asarray(mask) == 0
        notes.append(
            "wrong at "
            + (
                "masked positions only"
                if not np.any(off & ~masked)
                else "response positions only"
                if not np.any(off & masked)
                else "response and masked positions"
            )
        )
    elif got.size > 1:
        positions = [",".join(map(str, p)) for p in np.argwhere(off)]
        shown = ", ".join(f"[{p}]" for p in positions[:6]) + (", ..." if len(positions) > 6 else "")
        notes.append(f"{len(positions)} of {got.size} values wrong: {shown}")
    if np.any(~np.isfinite(got[off]) & np.isfinite(want[off])):
        notes.append("NaN or inf where the answer is finite")
    return "; ".join(notes)


# -- property tests --------------------------------------------------------------------
def given(*strategies, **named_strategies):
    """Drop-in for ``hypothesis.given`` in autograder tests: the same cases for every submission.

    Hypothesis draws the cases (explicit ``@example`` cases first, then
    ``property_examples`` generated ones, with a seed fixed by the test's name) the
    first time the test runs in a session; every submission graded in that session
    is then checked on exactly those cases, in order, until the first failure.
    Drawing is what costs (milliseconds a case), so a class pays for it once.
    Shrinking is off: students never see the failing case anyway.
    """

    def decorate(test):
        signature = inspect.signature(test)
        names = list(signature.parameters)
        drawn = names[len(names) - len(strategies) :] if strategies else []
        drawn += [n for n in named_strategies if n not in drawn]
        fixtures = [signature.parameters[n] for n in names if n not in drawn]
        explicit = list(getattr(test, "hypothesis_explicit_examples", []))

        @functools.wraps(test)
        def run(**fixture_values):
            if run.cases is None:
                run.cases = _draw_cases(test, drawn, strategies, named_strategies, explicit)
            for case in run.cases:
                test(**fixture_values, **case)

        run.cases = None
        run.__signature__ = signature.replace(parameters=fixtures)
        del run.__wrapped__  # pytest must see the fixtures only, not the drawn arguments
        # The examples belong to the drawing; left here, hypothesis' pytest plugin would object.
        run.__dict__.pop("hypothesis_explicit_examples", None)
        return pytest.mark.property(run)

    return decorate


def _cases_cache_file(test) -> Path | None:
    """Where the drawn cases of ``test`` are kept between runs (None: no cache).

    The key covers everything the drawing depends on: the test module's source,
    these helpers, the number of examples and the hypothesis and numpy versions.
    The directory is the process's cache (:mod:`grader.core.cache`, ``--cache``).
    """
    try:
        source = Path(inspect.getsourcefile(test)).read_bytes()
    except (TypeError, OSError):
        return None
    import hypothesis

    key = (
        source,
        Path(__file__).read_bytes(),
        test.__qualname__,
        property_examples(),
        hypothesis.__version__,
        np.__version__,
    )
    return cache.current().entry("cases", test.__name__, *key)


def _draw_cases(test, drawn, strategies, named_strategies, explicit) -> list[dict]:
    """The cases of a property test: from the cache when it has them, else drawn and stored."""
    entry = _cases_cache_file(test)
    stored = cache.GraderCache.read(entry)
    if stored is not None:
        try:
            return runtime.decode(stored)
        except (ValueError, runtime.WireError):
            pass  # a damaged cache entry is drawn again
    cases = _draw_with_hypothesis(test, drawn, strategies, named_strategies, explicit)
    try:
        cache.GraderCache.write(entry, runtime.encode(cases))  # plain data through the wire format (no pickle)
    except runtime.UnsupportedValue:
        pass  # the cache only saves time
    return cases


def _draw_with_hypothesis(test, drawn, strategies, named_strategies, explicit) -> list[dict]:
    from hypothesis import HealthCheck, Phase, seed, settings
    from hypothesis import given as hypothesis_given

    cases: list[dict] = []

    def record(*args, **values):
        values.update(zip(drawn, args))  # hypothesis passes positional strategies positionally
        cases.append(values)

    record.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in drawn]
    )
    record.__name__, record.__qualname__ = test.__name__, test.__qualname__
    record.hypothesis_explicit_examples = explicit
    runner = hypothesis_given(*strategies, **named_strategies)(record)
    runner = settings(
        max_examples=property_examples(),
        derandomize=False,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )(runner)
    runner = seed(zlib.crc32(f"{test.__module__}.{test.__qualname__}".encode()))(runner)
    runner()
    return cases
