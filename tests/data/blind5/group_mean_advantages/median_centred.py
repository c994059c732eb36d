"""Centres on the group median instead of the group mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r - np.median(r)
