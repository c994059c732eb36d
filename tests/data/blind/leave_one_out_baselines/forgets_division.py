"""returns the sum of the other rewards, forgetting to divide by G - 1"""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("rewards must be a vector of at least two rewards")
    return np.sum(r) - r
