"""Subtracts the mean in place, overwriting the caller's float rewards array."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    r -= r.mean()
    return r
