"""Visible checks of group_mean_advantages (students see these)."""

import numpy as np


def test_subtracts_the_group_mean(impl):
    """A_i = R_i - mean(R)."""
    got = impl.group_mean_advantages(np.array([1.0, 2.0, 6.0]))
    assert np.allclose(got, [-2.0, -1.0, 3.0]), "each advantage should be the reward minus the group mean (3)"


def test_advantages_sum_to_zero(impl):
    """Centred advantages always sum to zero."""
    got = impl.group_mean_advantages(np.array([0.3, -1.2, 4.5, 0.0, 2.2]))
    assert np.isclose(np.sum(got), 0.0), "centred advantages should sum to zero"


def test_single_response_has_zero_advantage(impl):
    """G = 1 is allowed: the only response equals the mean."""
    got = impl.group_mean_advantages(np.array([7.0]))
    assert np.allclose(got, [0.0]), "a group of one response should get advantage 0"
