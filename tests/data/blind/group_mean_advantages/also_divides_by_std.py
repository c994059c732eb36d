"""also divides by the group's standard deviation (z-scores) instead of only centring"""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    return (r - np.mean(r)) / np.std(r)
