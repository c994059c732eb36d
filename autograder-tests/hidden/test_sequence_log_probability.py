"""Hidden tests of sequence_log_probability: worked example, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grader.testing import (
    MASK_IGNORED,
    MASK_INVERTED,
    as_numeric,
    example_cases,
    expect,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_masked_ignored,
    expect_raises,
    expect_right,
    given,
)

WRONG = "differs from the sum of the token log-probabilities over the response tokens on these inputs"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("sequence_log_probability"))
def test_worked_example(impl, case):
    expect_example(case, impl.sequence_log_probability(**case.args))


# -- misconception probes: in this order, the first to fail names the mistake -------------
LP = np.array([[-0.7, -0.4, -1.1, -2.0], [-0.1, -0.9, -0.3, -0.2]])
MASK = np.array([[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0]])


@pytest.mark.weight(2)
def test_mask_of_ones_counts_every_position(impl, reference):
    mask = np.ones_like(LP)
    got = impl.sequence_log_probability(LP, mask)
    expect(not np.allclose(as_numeric(got), 0.0), MASK_INVERTED)  # every log-prob here is negative
    expect_right(got, reference.sequence_log_probability(LP, mask), WRONG)


@pytest.mark.weight(2)
def test_masked_positions_do_not_count(impl, reference):
    # Other (finite) values at the masked positions must change nothing.
    got = impl.sequence_log_probability(LP, MASK)
    expect_close(impl.sequence_log_probability(np.where(MASK != 0, LP, -5.0), MASK), got, MASK_IGNORED)
    expect_right(got, reference.sequence_log_probability(LP, MASK), WRONG)


@pytest.mark.weight(2)
@pytest.mark.course_rule("masked_values_ignored")
def test_masked_infinities_and_nans_are_ignored(impl, reference):
    # Log-probs of prompt or padding labels may be -inf (a banned token) or nan (never computed);
    # the result must be the one the same call gives with ordinary values there.
    poisoned = np.where(MASK != 0, LP, np.array([[-np.inf, 0, 0, np.nan], [np.nan, -np.inf, 0, 0]]))
    expect_masked_ignored(
        impl.sequence_log_probability(poisoned, MASK),
        impl.sequence_log_probability(LP, MASK),
        reference.sequence_log_probability(LP, MASK),
        WRONG,
    )


@pytest.mark.weight(2)
def test_sum_not_mean(impl, reference):
    lp = np.array([[-0.5, -1.0, -0.25, -2.0], [-0.75, -0.5, -3.0, -1.5]])
    mask = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    expect_close(
        impl.sequence_log_probability(lp, mask),
        reference.sequence_log_probability(lp, mask),
        "the log-probability of a sequence is the sum of its token log-probabilities, not their mean "
        "(no length normalisation)",
    )


def test_sums_over_the_last_axis(impl, reference):
    lp = -np.linspace(0.1, 2.4, 24).reshape(2, 3, 4)
    mask = (np.arange(24).reshape(2, 3, 4) % 3 != 0).astype(float)
    expect_close(
        impl.sequence_log_probability(lp, mask),
        reference.sequence_log_probability(lp, mask),
        "the sum must run over the last (token) axis and keep every leading axis: a [G, B, L] input gives [G, B]",
    )


def test_without_mask_every_position_counts(impl, reference):
    lp = np.array([[-0.5, -1.0, -0.25], [-0.75, -0.5, -3.0]])
    expect_close(
        impl.sequence_log_probability(lp),
        reference.sequence_log_probability(lp),
        "without a mask every position counts, and the result is still one sum per sequence over the last axis",
    )


def test_all_masked_row_is_zero(impl, reference):
    lp = np.array([[-0.5, -1.0, -0.25], [-1.5, -0.5, -2.0]])
    mask = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    expect_close(
        impl.sequence_log_probability(lp, mask),
        reference.sequence_log_probability(lp, mask),
        "a sequence without response tokens has log-probability 0 (an empty sum)",
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def log_prob_cases(draw):
    shape = tuple(draw(st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=3)))
    lp = draw(arrays(float, shape, elements=st.floats(min_value=-20, max_value=0, allow_nan=False)))
    if draw(st.booleans()):
        return dict(token_log_probs=lp)
    mask = draw(arrays(float, shape, elements=st.sampled_from([0.0, 1.0])))
    # Finite extremes only, as in the lab's example: -inf and nan are the course rule's own test.
    poison = draw(st.sampled_from([None, -1e6, 50.0]))
    if poison is not None:
        lp = np.where(mask != 0, lp, poison)
    return dict(token_log_probs=lp, mask=mask)


@pytest.mark.weight(2)
@given(log_prob_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(
        impl.sequence_log_probability(**case),
        reference.sequence_log_probability(**case),
        "differs from the definition on random inputs (one to three axes, with and without a mask, "
        "extreme values at masked positions)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lp, mask = [[-0.5, -1.0, -0.25], [-0.75, -0.5, -3.0]], [[0, 1, 1], [1, 1, 0]]
    expect_close(
        impl.sequence_log_probability(lp, mask),
        impl.sequence_log_probability(np.array(lp), np.array(mask, dtype=float)),
        "plain Python lists must be accepted like arrays",
    )
    expect_close(
        impl.sequence_log_probability(lp),
        impl.sequence_log_probability(np.array(lp)),
        "plain Python lists must be accepted like arrays (also without a mask)",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    lp = np.array([[-0.5, -1.0, -0.25], [-0.75, -0.5, -3.0]])
    mask = np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    expect_inputs_unchanged(impl.sequence_log_probability, lp, mask)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "mask",
    [
        np.array([1.0, 1.0, 0.0]),
        np.array([[1.0], [0.0]]),
        np.ones((2, 4)),
    ],
    ids=["one_row_for_a_batch", "one_column", "longer_rows"],
)
def test_rejects_a_mask_of_another_shape(impl, mask):
    lp = np.array([[-0.5, -1.0, -0.25], [-0.75, -0.5, -3.0]])
    expect_raises(
        ValueError,
        impl.sequence_log_probability,
        lp,
        mask,
        message="a mask whose shape differs from token_log_probs must raise ValueError (no silent broadcasting)",
    )
