"""Hidden tests of sequence_probability_ratio: worked example, misconception probes, properties, validation."""

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

WRONG = "differs from the product of the token ratios over the response tokens on these inputs"


def check(impl, reference, args, message):
    expect_close(impl.sequence_probability_ratio(**args), reference.sequence_probability_ratio(**args), message)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("sequence_probability_ratio"))
def test_worked_example(impl, case):
    expect_example(case, impl.sequence_probability_ratio(**case.args))


# -- misconception probes: in this order, the first to fail names the mistake -------------
# Responses of three tokens and of two tokens; ordinary values at masked positions.
NEW = [[-1.0, -0.2, -0.9, -0.4], [-2.0, -0.3, -1.1, -0.6]]
OLD = [[-3.0, -0.5, -0.6, -0.1], [-0.5, -0.8, -1.4, -0.2]]
MASK = [[0, 1, 1, 1], [0, 1, 1, 0]]


@pytest.mark.weight(2)
def test_mask_of_ones_counts_every_position(impl, reference):
    args = log_prob_args(NEW, OLD, np.ones((2, 4)))
    got = impl.sequence_probability_ratio(**args)
    expect(not np.allclose(as_numeric(got), 1.0), MASK_INVERTED)  # no row's ratios multiply to 1 here
    expect_right(got, reference.sequence_probability_ratio(**args), WRONG)


@pytest.mark.weight(2)
def test_masked_positions_do_not_count(impl, reference):
    # Other (finite) values at the masked positions must change nothing.
    args = log_prob_args(NEW, OLD, MASK)
    got = impl.sequence_probability_ratio(**args)
    moved = log_prob_args(np.where(args["mask"] != 0, args["new_log_probs"], -5.0), OLD, MASK)
    expect_close(impl.sequence_probability_ratio(**moved), got, MASK_IGNORED)
    expect_right(got, reference.sequence_probability_ratio(**args), WRONG)


@pytest.mark.weight(2)
def test_product_not_geometric_mean(impl, reference):
    check(
        impl,
        reference,
        log_prob_args(NEW, OLD, MASK),
        "length-normalised sequence ratio: the exact sequence ratio is the product of the token ratios, exp of "
        "the summed log-ratios, not their geometric mean",
    )


def test_product_not_sum_or_average_of_token_ratios(impl, reference):
    # Ratios far from 1 make the average, the sum and the product far apart.
    args = log_prob_args(
        [[-0.1, -2.0, -0.3], [-1.5, -0.2, -0.9]], [[-1.4, -0.4, -0.3], [-0.1, -1.1, -0.9]], [[1, 1, 0], [1, 1, 0]]
    )
    check(
        impl,
        reference,
        args,
        "the sequence ratio is the product of the token ratios over the response tokens, not their sum or average",
    )


def test_ratio_of_probabilities_not_of_log_probs(impl, reference):
    check(
        impl,
        reference,
        log_prob_args([[-0.5, -2.0, -1.2]], [[-1.0, -1.6, -1.2]], [[1, 1, 0]]),
        "the sequence ratio is a ratio of probabilities, exp(sum of new - old): not a quotient of the "
        "(summed) log-probabilities",
    )


def test_long_responses_do_not_underflow(impl, reference):
    # Sequence log-probabilities near -1000: exp of each underflows to 0, their difference is moderate.
    new = np.full((2, 4), -250.0) + np.array([[0.1, -0.2, 0.05, 0.0], [0.0, 0.3, -0.1, 0.2]])
    check(
        impl,
        reference,
        log_prob_args(new, np.full((2, 4), -250.0), np.ones((2, 4))),
        "exp(sum of new) / exp(sum of old) underflows (0 / 0) for the very negative log-probabilities of long "
        "responses: exponentiate the summed token log-ratios instead",
    )


@pytest.mark.weight(2)
def test_masked_positions_are_factors_of_one(impl, reference):
    # The same responses with their masked columns cut away must give the same ratios.
    new, old = np.array(NEW), np.array(OLD)
    args = log_prob_args(new, old, np.array([[0, 1, 1, 1], [0, 1, 1, 1]]))
    full = impl.sequence_probability_ratio(**args)
    cut = impl.sequence_probability_ratio(**log_prob_args(new[:, 1:], old[:, 1:], np.ones((2, 3))))
    expect_close(
        full,
        cut,
        "masked ratios are 0 instead of 1: a masked position must contribute the factor 1 to "
        "the product (the sequence ratio sees only response tokens)",
    )
    expect_right(full, reference.sequence_probability_ratio(**args), WRONG)  # the pair: not any constant


@pytest.mark.weight(2)
@pytest.mark.course_rule("masked_values_ignored")
def test_nonfinite_masked_log_probs_do_not_leak(impl, reference):
    mask = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    new = np.array([[-9.0, -0.5, -1.1, -3.0], [-0.3, -0.4, -7.0, -4.0]])
    old = np.array([[-1.0, -0.7, -0.8, -2.0], [-0.4, -0.1, -0.5, -1.0]])
    clean = log_prob_args(new, old, mask)
    poisoned = log_prob_args(*poison_masked(new, old, mask), mask)
    expect_masked_ignored(
        impl.sequence_probability_ratio(**poisoned),
        impl.sequence_probability_ratio(**clean),
        reference.sequence_probability_ratio(**clean),
        WRONG,
    )


def test_row_without_response_tokens_is_one(impl, reference):
    args = log_prob_args(
        [[-0.2, -1.6, -0.3], [-1.2, -0.1, -0.5]], [[-1.0, -0.9, -0.3], [-0.2, -0.8, -0.4]], [[1, 1, 1], [0, 0, 0]]
    )
    check(impl, reference, args, "a row without response tokens has ratio 1 (an empty product)")


# -- properties against the reference ----------------------------------------------------
@st.composite
def ratio_cases(draw):
    shape = (draw(st.integers(min_value=1, max_value=4)), draw(st.integers(min_value=1, max_value=7)))
    log_probs = st.floats(min_value=-3, max_value=0, allow_nan=False)
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
        impl.sequence_probability_ratio(**case),
        reference.sequence_probability_ratio(**case),
        "differs from the definition on random inputs (empty and full rows, extreme values at masked positions)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lists = ([[-0.5, -1.0], [-0.2, -0.4]], [[-0.6, -0.8], [-0.3, -0.4]], [[1, 1], [0, 1]])
    expect_close(
        impl.sequence_probability_ratio(*lists),
        impl.sequence_probability_ratio(**log_prob_args(*lists)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = log_prob_args(
        [[-0.5, -1.0, -0.3], [-0.2, -0.4, -0.9]], [[-0.6, -0.8, -0.3], [-0.3, -0.4, -0.1]], [[1, 1, 0], [0, 1, 1]]
    )
    expect_inputs_unchanged(impl.sequence_probability_ratio, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "change",
    [
        dict(mask=np.ones((2, 1))),
        dict(old_log_probs=np.zeros((1, 3))),
        dict(new_log_probs=np.zeros(3), old_log_probs=np.zeros(3), mask=np.ones(3)),
    ],
    ids=["mask_one_column", "old_one_row", "one_dimensional"],
)
def test_rejects_misshaped_inputs(impl, change):
    args = dict(log_prob_args(np.zeros((2, 3)), np.zeros((2, 3)), np.ones((2, 3))), **change)
    expect_raises(
        ValueError,
        impl.sequence_probability_ratio,
        **args,
        message="new_log_probs, old_log_probs and mask must share one [B, L] shape; anything else must "
        "raise ValueError (no silent broadcasting)",
    )
