"""Visible checks of leave_one_out_baselines (students see these)."""

import numpy as np


def test_baseline_averages_the_other_rewards(impl):
    """b_i = (sum of all rewards - R_i) / (G - 1)."""
    got = impl.leave_one_out_baselines(np.array([2.0, 5.0, 11.0]))
    assert np.allclose(got, [8.0, 6.5, 3.5]), "each baseline should be the mean of the other two rewards"


def test_pair_swaps_rewards(impl):
    """With two responses, each baseline is the other response's reward."""
    got = impl.leave_one_out_baselines(np.array([-1.0, 3.0]))
    assert np.allclose(got, [3.0, -1.0]), "with G = 2 the baseline of one response is the other's reward"


def test_rejects_a_single_reward(impl):
    """There is no 'other response' in a group of one."""
    try:
        impl.leave_one_out_baselines(np.array([4.0]))
    except ValueError:
        return
    assert False, "a group of one reward should raise ValueError"
