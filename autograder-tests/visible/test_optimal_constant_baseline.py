"""Visible checks of optimal_constant_baseline (students see these)."""

import numpy as np


def test_uniform_policy_gives_mean_value(impl):
    """Equal logits: every score vector has the same norm, so b* is the plain mean of Q."""
    got = impl.optimal_constant_baseline(np.zeros(3), np.array([1.0, 2.0, 6.0]))
    assert np.isclose(got, 3.0), "for a uniform policy b* should be the mean of the action values"


def test_equal_action_values(impl):
    """If every action has the same value, b* equals that value."""
    got = impl.optimal_constant_baseline(np.array([2.0, -1.0, 0.5]), np.array([4.0, 4.0, 4.0]))
    assert np.isclose(got, 4.0), "b* is a weighted average of the action values"


def test_rare_action_weighs_more_than_in_state_value(impl):
    """pi = (0.75, 0.25), Q = (0, 4): V = 1, but the rare action's large score gives b* = 3."""
    got = impl.optimal_constant_baseline(np.array([np.log(3.0), 0.0]), np.array([0.0, 4.0]))
    assert np.ndim(got) == 0, "b* should be a single number"
    assert np.isclose(got, 3.0), "b* should weight Q(a) by pi(a) |g(a)|^2, not by pi(a) alone (that gives V = 1)"
