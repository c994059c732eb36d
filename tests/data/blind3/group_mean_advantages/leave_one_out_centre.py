"""Centres each reward on the mean of the other rewards (RLOO) instead of the whole group's mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if r.size == 1:
        return np.zeros(1)
    return r - (r.sum() - r) / (r.size - 1)
