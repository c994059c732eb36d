"""Visible checks of masked_token_ppo_objective (students see these)."""

import numpy as np


def test_the_three_reductions(impl):
    """Ratios of 1: the terms are the advantages (3 on three tokens of row 0, 0 on one token of row 1)."""
    zeros = np.zeros((2, 3))
    args = (zeros, zeros, np.array([3.0, 0.0]), np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]))
    got = impl.masked_token_ppo_objective(*args, reduction="token_mean")
    assert np.isclose(got, 2.25), "token_mean: sum over the 4 response tokens divided by 4"
    got = impl.masked_token_ppo_objective(*args, reduction="sequence_mean")
    assert np.isclose(got, 1.5), "sequence_mean: row means 3 and 0, then their mean"
    got = impl.masked_token_ppo_objective(*args, reduction="sequence_sum_mean")
    assert np.isclose(got, 4.5), "sequence_sum_mean: row sums 9 and 0, then their mean"


def test_no_response_tokens_gives_zero(impl):
    """An all-zero mask gives 0.0."""
    zeros = np.zeros((2, 3))
    got = impl.masked_token_ppo_objective(zeros, zeros, np.array([1.0, 2.0]), zeros)
    assert np.isclose(got, 0.0), "with no response tokens the objective is 0.0, not nan (a course rule)"


def test_unknown_reduction_raises(impl):
    """Only token_mean, sequence_mean and sequence_sum_mean exist."""
    zeros = np.zeros((1, 2))
    try:
        impl.masked_token_ppo_objective(zeros, zeros, np.array([1.0]), np.ones((1, 2)), reduction="median")
    except ValueError:
        return
    assert False, "reduction='median' should raise ValueError"
