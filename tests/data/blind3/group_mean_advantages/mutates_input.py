"""Subtracts the mean in place, which changes the caller's float array of rewards."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    r -= r.mean()
    return r
