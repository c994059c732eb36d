"""Hidden tests of sequence_log_probability_ratio: worked example, misconception probes, properties, validation."""

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
    log_prob_args,
    poison_masked,
)

WRONG = "differs from the masked sum of the token log-ratios new - old on these inputs"


def check(impl, reference, args, message):
    expect_close(impl.sequence_log_probability_ratio(**args), reference.sequence_log_probability_ratio(**args), message)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("sequence_log_probability_ratio"))
def test_worked_example(impl, case):
    expect_example(case, impl.sequence_log_probability_ratio(**case.args))


# -- misconception probes: in this order, the first to fail names the mistake -------------
# Every row's response log-ratios add up to something other than 0; masked ones far from 0.
NEW = [[-9.0, -0.5, -1.1, -3.0], [-0.3, -0.4, -7.0, -4.0]]
OLD = [[-1.0, -0.7, -0.8, -2.0], [-0.4, -0.1, -0.5, -1.0]]
MASK = [[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]


@pytest.mark.weight(2)
def test_mask_of_ones_counts_every_position(impl, reference):
    args = log_prob_args(NEW, OLD, np.ones((2, 4)))
    got = impl.sequence_log_probability_ratio(**args)
    expect(not np.allclose(as_numeric(got), 0.0), MASK_INVERTED)  # no row's log-ratios add up to 0 here
    expect_right(got, reference.sequence_log_probability_ratio(**args), WRONG)


@pytest.mark.weight(2)
def test_masked_positions_do_not_count(impl, reference):
    # Other (finite) values at the masked positions must change nothing.
    args = log_prob_args(NEW, OLD, MASK)
    got = impl.sequence_log_probability_ratio(**args)
    moved = log_prob_args(np.where(args["mask"] != 0, args["new_log_probs"], -5.0), OLD, MASK)
    expect_close(impl.sequence_log_probability_ratio(**moved), got, MASK_IGNORED)
    expect_right(got, reference.sequence_log_probability_ratio(**args), WRONG)


@pytest.mark.weight(2)
def test_exact_sum_not_length_normalised(impl, reference):
    # Responses of three tokens and of one token; ordinary values at masked positions.
    args = log_prob_args(
        [[-1.0, -0.2, -0.9, -0.4], [-2.0, -0.3, -1.1, -0.6]],
        [[-3.0, -0.5, -0.6, -0.1], [-0.5, -0.8, -1.4, -0.2]],
        [[0, 1, 1, 1], [0, 1, 0, 0]],
    )
    check(
        impl,
        reference,
        args,
        "length-normalised sequence ratio: the exact sequence log-ratio is the masked sum "
        "of the token log-ratios, not their mean",
    )


@pytest.mark.weight(2)
@pytest.mark.course_rule("masked_values_ignored")
def test_nonfinite_masked_log_probs_do_not_leak(impl, reference):
    clean = log_prob_args(NEW, OLD, MASK)
    poisoned = log_prob_args(*poison_masked(NEW, OLD, MASK), MASK)
    expect_masked_ignored(
        impl.sequence_log_probability_ratio(**poisoned),
        impl.sequence_log_probability_ratio(**clean),
        reference.sequence_log_probability_ratio(**clean),
        WRONG,
    )


def test_log_ratio_is_new_minus_old(impl, reference):
    # One response token per row: a mean and a sum agree here.
    args = log_prob_args([[-0.2, -1.6], [-1.2, -0.1]], [[-1.0, -0.9], [-0.2, -0.8]], [[1, 0], [0, 1]])
    check(
        impl,
        reference,
        args,
        "the log-ratio is inverted: it is log pi_new - log pi_old (new_log_probs minus old_log_probs)",
    )


def test_row_without_response_tokens_is_zero(impl, reference):
    args = log_prob_args(
        [[-0.2, -1.6, -0.3], [-1.2, -0.1, -0.5]], [[-1.0, -0.9, -0.3], [-0.2, -0.8, -0.4]], [[1, 1, 1], [0, 0, 0]]
    )
    check(impl, reference, args, "a row without response tokens has log-ratio 0 (an empty sum; its ratio is 1)")


# -- properties against the reference ----------------------------------------------------
@st.composite
def ratio_cases(draw):
    shape = (draw(st.integers(min_value=1, max_value=4)), draw(st.integers(min_value=1, max_value=7)))
    log_probs = st.floats(min_value=-6, max_value=0, allow_nan=False)
    new = draw(arrays(float, shape, elements=log_probs))
    old = draw(arrays(float, shape, elements=log_probs))
    mask = draw(arrays(float, shape, elements=st.sampled_from([0.0, 1.0])))
    # Finite extremes only at masked positions, as in the lab's example: -inf and nan are the course
    # rule's own test.
    poison = draw(st.sampled_from([None, -1e3, 20.0]))
    if poison is not None:
        new, old = np.where(mask != 0, new, poison), np.where(mask != 0, old, -50.0)
    return log_prob_args(new, old, mask)


@pytest.mark.weight(2)
@given(ratio_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(
        impl.sequence_log_probability_ratio(**case),
        reference.sequence_log_probability_ratio(**case),
        "differs from the definition on random inputs (empty and full rows, extreme values at masked positions)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lists = ([[-0.5, -1.0], [-0.2, -0.4]], [[-0.6, -0.8], [-0.3, -0.4]], [[1, 1], [0, 1]])
    expect_close(
        impl.sequence_log_probability_ratio(*lists),
        impl.sequence_log_probability_ratio(**log_prob_args(*lists)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = log_prob_args(
        [[-0.5, -1.0, -0.3], [-0.2, -0.4, -0.9]], [[-0.6, -0.8, -0.3], [-0.3, -0.4, -0.1]], [[1, 1, 0], [0, 1, 1]]
    )
    expect_inputs_unchanged(impl.sequence_log_probability_ratio, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "change",
    [
        dict(mask=np.ones((2, 1))),
        dict(old_log_probs=np.zeros((1, 3))),
        dict(mask=np.ones((2, 4))),
        dict(new_log_probs=np.zeros(3), old_log_probs=np.zeros(3), mask=np.ones(3)),
        dict(new_log_probs=np.zeros((2, 3, 1)), old_log_probs=np.zeros((2, 3, 1)), mask=np.ones((2, 3, 1))),
    ],
    ids=["mask_one_column", "old_one_row", "mask_longer", "one_dimensional", "three_dimensional"],
)
def test_rejects_misshaped_inputs(impl, change):
    args = dict(log_prob_args(np.zeros((2, 3)), np.zeros((2, 3)), np.ones((2, 3))), **change)
    expect_raises(
        ValueError,
        impl.sequence_log_probability_ratio,
        **args,
        message="new_log_probs, old_log_probs and mask must share one [B, L] shape; anything else must "
        "raise ValueError (no silent broadcasting)",
    )
