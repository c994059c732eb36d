"""Visible checks of discounted_score_weights (students see these)."""

import numpy as np


def test_late_reward_gives_equal_weights(impl):
    """One reward 8 at the last step, gamma = 0.5: G = (2, 4, 8) and gamma^t G_t = (2, 2, 2)."""
    got = impl.discounted_score_weights(np.array([0.0, 0.0, 8.0]), 0.5)
    assert np.allclose(got, [2.0, 2.0, 2.0]), "the weight of step t should be gamma^t * G_t"


def test_undiscounted_weights_are_returns_to_go(impl):
    """gamma = 1: the outer discount is 1, so the weights are the returns-to-go."""
    got = impl.discounted_score_weights(np.array([1.0, -1.0, 2.0, 0.5]), 1.0)
    assert np.allclose(got, [2.5, 1.5, 2.5, 0.5]), "with gamma = 1 the weights should equal the returns-to-go"


def test_first_weight_is_discounted_return(impl):
    """The first weight is G_0 = sum_k gamma^k r_k, the discounted return of the whole episode."""
    rewards = np.random.default_rng(1).normal(size=7)
    gamma = 0.9
    got = np.asarray(impl.discounted_score_weights(rewards, gamma))
    assert got.shape == (7,), "there should be one weight per step"
    assert np.isclose(got[0], np.sum(gamma ** np.arange(7) * rewards)), "the first weight should be G_0 (gamma^0 = 1)"
