"""Hidden tests of stable_softmax: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import example
from hypothesis import strategies as st

from grader.testing import (
    example_cases,
    expect,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_raises,
    expect_shape,
    given,
)

NOT_NORMALISED = "the probabilities do not sum to one: after exponentiating the (shifted) logits, divide by their sum"


def expect_softmax(got, want, message):
    """``got`` matches ``want``; a finite result that is not normalised gets its own message."""
    want = np.asarray(want, dtype=float)
    got = expect_shape(got, want.shape, "softmax returns one probability per logit")
    if np.all(np.isfinite(got)):
        expect(np.isclose(np.sum(got), 1.0, rtol=0, atol=1e-9), NOT_NORMALISED)
    expect_close(got, want, message)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("stable_softmax"))
def test_worked_example(impl, case):
    expect_example(case, impl.stable_softmax(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_huge_logits_do_not_overflow(impl, reference):
    logits = np.array([905.0, 899.5, 903.0, 880.0])
    expect_softmax(
        impl.stable_softmax(logits),
        reference.stable_softmax(logits),
        "exp overflows for large logits: subtract the largest logit before exponentiating "
        "(a common shift of all logits leaves the softmax unchanged)",
    )


def test_very_negative_logits_do_not_underflow(impl, reference):
    logits = np.array([-1204.0, -1201.5, -1203.0])
    expect_softmax(
        impl.stable_softmax(logits),
        reference.stable_softmax(logits),
        "for very negative logits every exp underflows to 0 and the result is 0/0: subtract the "
        "largest logit so that the largest term is exp(0) = 1",
    )


def test_shifts_by_the_maximum(impl, reference):
    # Logits far apart: shifting by the minimum or the mean still leaves an exponent near 800.
    logits = np.array([-810.0, 3.0, 805.0, 0.5])
    expect_softmax(
        impl.stable_softmax(logits),
        reference.stable_softmax(logits),
        "the logits are shifted by something other than their maximum (the minimum or the mean?): "
        "when logits lie far apart exp still overflows; only subtracting the max keeps every "
        "exponent at or below 0",
    )


def test_masked_logit_gets_zero_probability(impl, reference):
    logits = np.array([1.5, -np.inf, 0.25, -0.75])
    got = expect_shape(impl.stable_softmax(logits), (4,), "softmax returns one probability per logit")
    expect(
        np.all(np.isfinite(got)),
        "a masked action (logit -inf) produced NaN or inf: it must simply get probability 0 "
        "(shifting by the maximum handles it; shifting by the mean or the minimum does not)",
    )
    expect_softmax(
        got,
        reference.stable_softmax(logits),
        "a masked action (logit -inf) must get probability 0 and the others share the mass as usual",
    )


def test_probabilities_sum_to_one(impl):
    logits = np.array([0.3, -1.2, 2.0, 0.0, 0.7])
    got = expect_shape(impl.stable_softmax(logits), (5,), "softmax returns one probability per logit")
    expect(np.all(got >= 0) and np.isclose(np.sum(got), 1.0, rtol=0, atol=1e-9), NOT_NORMALISED)


# -- properties against the reference ----------------------------------------------------
@st.composite
def logit_vectors(draw):
    k = draw(st.integers(min_value=1, max_value=12))
    logits = np.array(draw(st.lists(st.floats(min_value=-30, max_value=30, allow_nan=False), min_size=k, max_size=k)))
    # Huge common offsets: the answer must not change, and exp must not overflow.
    offset = draw(st.sampled_from([0.0, 0.0, 0.0, 750.0, -750.0, 1.0e4, -1.0e4]))
    return logits + offset


@pytest.mark.weight(2)
@given(logit_vectors())
@example(logits=np.array([1.0e4]))
@example(logits=np.array([-3.0, 1.0e4, 1.0e4 - 2.0]))
def test_matches_reference_on_random_inputs(impl, reference, logits):
    expect_softmax(
        impl.stable_softmax(logits),
        reference.stable_softmax(logits),
        "differs from the softmax on random logits (one action up to twelve, logits shifted by "
        "large positive or negative offsets)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for the float array: only the input type is tested here.
    expect_close(
        impl.stable_softmax([0.5, -0.25, 1.75]),
        impl.stable_softmax(np.array([0.5, -0.25, 1.75])),
        "plain Python lists must be accepted like arrays",
    )
    expect_close(
        impl.stable_softmax([3, 1, 2, 1]),
        impl.stable_softmax(np.array([3.0, 1.0, 2.0, 1.0])),
        "plain Python lists must be accepted like arrays, integer logits included: compute on a "
        "float copy (an integer array truncates the probabilities)",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    logits = np.array([2.5, -1.0, 4.0, 0.5])
    expect_inputs_unchanged(
        impl.stable_softmax,
        logits,
        message="stable_softmax modifies the caller's logits in place (e.g. subtracting "
        "the maximum with -=); work on a copy",
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "logits", [np.zeros(0), np.zeros((2, 3)), np.float64(1.5)], ids=["empty", "two_dimensional", "scalar"]
)
def test_rejects_invalid_logits(impl, logits):
    expect_raises(
        ValueError,
        impl.stable_softmax,
        logits,
        message="logits that are not a non-empty one-dimensional array (empty, 2-D or a single "
        "number) must raise ValueError",
    )
