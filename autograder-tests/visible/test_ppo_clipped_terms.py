"""Visible checks of ppo_clipped_terms (students see these)."""

import numpy as np


def test_ratio_inside_interval_is_not_clipped(impl):
    """Inside [1 - eps, 1 + eps] all three terms equal r * A."""
    unclipped, clipped, pessimistic = impl.ppo_clipped_terms(np.array([1.1]), np.array([2.0]), clip_epsilon=0.2)
    assert np.allclose([unclipped, clipped, pessimistic], [[2.2], [2.2], [2.2]]), (
        "a ratio inside the interval should leave all three terms at r * A"
    )


def test_large_ratio_negative_advantage_keeps_unclipped(impl):
    """r = 2, A = -0.5: r * A = -1.0 is below clip(r) * A = -0.6, so the minimum keeps -1.0."""
    unclipped, clipped, pessimistic = impl.ppo_clipped_terms(np.array([2.0]), np.array([-0.5]), clip_epsilon=0.2)
    assert np.allclose(unclipped, [-1.0]), "unclipped should be r * A"
    assert np.allclose(clipped, [-0.6]), "clipped should be clip(r, 0.8, 1.2) * A"
    assert np.allclose(pessimistic, [-1.0]), "pessimistic should be the smaller of the two"


def test_small_ratio_negative_advantage_is_clipped(impl):
    """r = 0.5, A = -3, eps = 0.3: clip(r) = 0.7, and -2.1 is below r * A = -1.5."""
    _, clipped, pessimistic = impl.ppo_clipped_terms(np.array([0.5]), np.array([-3.0]), clip_epsilon=0.3)
    assert np.allclose(clipped, [-2.1]), "clipped should use the ratio clipped to [1 - eps, 1 + eps]"
    assert np.allclose(pessimistic, [-2.1]), "here the clipped branch is the minimum"
