"""Centres the rewards in place, overwriting a caller's float array."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    r -= r.mean()
    return r
