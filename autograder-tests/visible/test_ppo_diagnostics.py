"""Visible checks of ppo_diagnostics (students see these)."""

import numpy as np


def test_unchanged_policy_gives_zeros(impl):
    """new == old: every ratio is 1, nothing is clipped, the KL estimate is 0."""
    logp = np.array([-0.3, -1.2, -2.0])
    got = impl.ppo_diagnostics(logp, logp.copy(), np.array([1.0, -1.0, 0.5]))
    values = [got.ratio_outside_fraction, got.active_clip_fraction, got.approx_kl_nonnegative, got.mean_log_ratio]
    assert np.allclose(values, 0.0), "an unchanged policy should give four zeros"


def test_doubled_probability_positive_advantage(impl):
    """r = 2 with A = 1: outside, and clipping lowers the minimum; KL term (2 - 1) - log 2."""
    got = impl.ppo_diagnostics(np.array([np.log(2.0)]), np.array([0.0]), np.array([1.0]))
    assert np.isclose(got.ratio_outside_fraction, 1.0), "a ratio of 2 lies outside [0.8, 1.2]"
    assert np.isclose(got.active_clip_fraction, 1.0), "with A > 0 and r > 1 + eps clipping changes the minimum"
    assert np.isclose(got.approx_kl_nonnegative, 1.0 - np.log(2.0)), "the KL estimate averages (r - 1) - log r"
    assert np.isclose(got.mean_log_ratio, np.log(2.0)), "mean_log_ratio averages new - old"


def test_outside_but_not_active(impl):
    """r = 2 with A = -1: the ratio is outside, yet the minimum is the unclipped term."""
    got = impl.ppo_diagnostics(np.array([np.log(2.0)]), np.array([0.0]), np.array([-1.0]))
    assert np.isclose(got.ratio_outside_fraction, 1.0), "a ratio of 2 lies outside [0.8, 1.2]"
    assert np.isclose(got.active_clip_fraction, 0.0), (
        "active_clip_fraction counts rows where clipping changed the minimum, not ratios outside the interval"
    )
