"""leave_one_out_baselines that sums the other rewards but forgets to divide by G - 1.

module: group_baselines
expect: does not divide the sum of the other rewards
"""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    return np.sum(r) - r
