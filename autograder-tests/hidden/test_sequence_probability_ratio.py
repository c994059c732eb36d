"""Hidden tests of sequence_probability_ratio: worked example, misconception probes, properties, validation."""

import numpy as np
import pytest
from grader.testing import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grader.testing import (MASKED_LEAK, expect_close, expect_close_naming_mistakes, expect_inputs_unchanged,
                            expect_raises, log_prob_args, poison_masked, worked_examples)

EXAMPLES = worked_examples("sequence_probability_ratio")

GEOMETRIC = ("length-normalised sequence ratio: the exact sequence ratio is the product of the token ratios, "
             "exp of the summed log-ratios, not their geometric mean")
ZERO_FACTORS = ("masked ratios are 0 instead of 1: a masked position must contribute the factor 1 to the product "
                "(the sequence ratio sees only response tokens)")
AVERAGE = ("the average of the token ratios is not the sequence ratio: the sequence ratio is their product over "
           "the response tokens")


def check(impl, reference, args, message):
    """Compare with the reference; a per-token mean or a zero factor in place of the product is named as such."""
    want = reference.sequence_probability_ratio(**args)
    active = args["mask"] != 0
    count = np.maximum(active.sum(axis=1), 1)
    token_ratios = np.where(active, np.exp(args["new_log_probs"] - args["old_log_probs"]), 0.0)
    log_ratios = np.where(active, args["new_log_probs"] - args["old_log_probs"], 0.0)
    expect_close_naming_mistakes(impl.sequence_probability_ratio(**args), want, message, {
        GEOMETRIC: np.exp(log_ratios.sum(axis=1) / count),
        AVERAGE: token_ratios.sum(axis=1) / count,
        ZERO_FACTORS: np.where(np.all(active, axis=1), want, 0.0),
    })


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", EXAMPLES, ids=str)
def test_worked_example(impl, case):
    got = impl.sequence_probability_ratio(**case.args)
    expect_close(got, case.expected, f"does not reproduce the module's worked example '{case.name}': {case.hint}")


# -- misconception probes ------------------------------------------------------------------
# Responses of three tokens and of two tokens; ordinary values at masked positions.
NEW = [[-1.0, -0.2, -0.9, -0.4], [-2.0, -0.3, -1.1, -0.6]]
OLD = [[-3.0, -0.5, -0.6, -0.1], [-0.5, -0.8, -1.4, -0.2]]
MASK = [[0, 1, 1, 1], [0, 1, 1, 0]]


@pytest.mark.weight(2)
def test_product_not_geometric_mean(impl, reference):
    check(impl, reference, log_prob_args(NEW, OLD, MASK), GEOMETRIC)


def test_product_not_average_of_token_ratios(impl, reference):
    # Ratios far from 1 make the average and the product far apart.
    args = log_prob_args([[-0.1, -2.0, -0.3], [-1.5, -0.2, -0.9]], [[-1.4, -0.4, -0.3], [-0.1, -1.1, -0.9]],
                         [[1, 1, 0], [1, 1, 0]])
    check(impl, reference, args, AVERAGE)


@pytest.mark.weight(2)
def test_masked_positions_are_factors_of_one(impl):
    # The same responses with their masked columns cut away must give the same ratios.
    new, old = np.array(NEW), np.array(OLD)
    full = impl.sequence_probability_ratio(**log_prob_args(new, old, np.array([[0, 1, 1, 1], [0, 1, 1, 1]])))
    cut = impl.sequence_probability_ratio(**log_prob_args(new[:, 1:], old[:, 1:], np.ones((2, 3))))
    expect_close(full, cut, ZERO_FACTORS)


@pytest.mark.weight(2)
def test_nonfinite_masked_log_probs_do_not_leak(impl):
    mask = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    new = np.array([[-9.0, -0.5, -1.0, -3.0], [-0.3, -0.2, -7.0, -4.0]])
    old = np.array([[-1.0, -0.7, -0.8, -2.0], [-0.4, -0.1, -0.5, -1.0]])
    clean = log_prob_args(new, old, mask)
    poisoned = log_prob_args(*poison_masked(new, old, mask), mask)
    expect_close(impl.sequence_probability_ratio(**poisoned), impl.sequence_probability_ratio(**clean), MASKED_LEAK)


def test_row_without_response_tokens_is_one(impl, reference):
    args = log_prob_args([[-0.2, -1.6, -0.3], [-1.2, -0.1, -0.5]], [[-1.0, -0.9, -0.3], [-0.2, -0.8, -0.4]],
                         [[1, 1, 1], [0, 0, 0]])
    check(impl, reference, args, "a row without response tokens has ratio 1 (an empty product)")


# -- properties against the reference ----------------------------------------------------
@st.composite
def ratio_cases(draw):
    shape = (draw(st.integers(min_value=1, max_value=4)), draw(st.integers(min_value=1, max_value=7)))
    log_probs = st.floats(min_value=-3, max_value=0, allow_nan=False)
    new = draw(arrays(float, shape, elements=log_probs))
    old = draw(arrays(float, shape, elements=log_probs))
    mask = draw(arrays(float, shape, elements=st.sampled_from([0.0, 1.0])))
    poison = draw(st.sampled_from([None, -np.inf, np.nan]))
    if poison is not None:
        new, old = np.where(mask != 0, new, poison), np.where(mask != 0, old, -np.inf)
    return log_prob_args(new, old, mask)


@pytest.mark.weight(2)
@given(ratio_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(impl.sequence_probability_ratio(**case), reference.sequence_probability_ratio(**case),
                 "differs from the definition on random inputs (empty and full rows, -inf or nan at masked "
                 "positions)")


def test_accepts_lists(impl, reference):
    args = dict(new_log_probs=[[-0.5, -1.0], [-0.2, -0.4]], old_log_probs=[[-0.6, -0.8], [-0.3, -0.4]],
                mask=[[1, 1], [0, 1]])
    expect_close(impl.sequence_probability_ratio(**args), reference.sequence_probability_ratio(**args),
                 "plain Python lists must be accepted like arrays")


def test_does_not_modify_inputs(impl):
    args = log_prob_args([[-0.5, -1.0, -0.3], [-0.2, -0.4, -0.9]], [[-0.6, -0.8, -0.3], [-0.3, -0.4, -0.1]],
                         [[1, 1, 0], [0, 1, 1]])
    expect_inputs_unchanged(impl.sequence_probability_ratio, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.parametrize("change", [
    dict(mask=np.ones((2, 1))),
    dict(old_log_probs=np.zeros((1, 3))),
    dict(new_log_probs=np.zeros(3), old_log_probs=np.zeros(3), mask=np.ones(3)),
], ids=["mask_one_column", "old_one_row", "one_dimensional"])
def test_rejects_misshaped_inputs(impl, change):
    args = dict(log_prob_args(np.zeros((2, 3)), np.zeros((2, 3)), np.ones((2, 3))), **change)
    expect_raises(ValueError, impl.sequence_probability_ratio, **args,
                  message="new_log_probs, old_log_probs and mask must share one [B, L] shape; anything else must "
                          "raise ValueError (no silent broadcasting)")
