"""Visible checks of reward_to_go (students see these)."""

import numpy as np


def test_undiscounted_returns_sum_the_remaining_rewards(impl):
    """gamma = 1: G_t = r_t + r_{t+1} + ... + r_{T-1}."""
    got = impl.reward_to_go(np.array([1.0, 2.0, 3.0, 4.0]), 1.0)
    assert np.allclose(got, [10.0, 9.0, 7.0, 4.0]), "with gamma = 1, G_t should sum the rewards from t to the end"


def test_late_reward_is_discounted_back(impl):
    """One reward 8 at the last step, gamma = 0.5: the returns are (2, 4, 8)."""
    got = impl.reward_to_go(np.array([0.0, 0.0, 8.0]), 0.5)
    assert np.allclose(got, [2.0, 4.0, 8.0]), "a reward k steps ahead should count gamma^k times"


def test_empty_episode_gives_empty_array(impl):
    """T = 0 is allowed: the result is an empty array."""
    got = np.asarray(impl.reward_to_go(np.zeros(0), 0.9))
    assert got.shape == (0,), "an empty episode should give an empty array"
