"""A Python loop over the rewards, the mean taken with np.mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    centre = np.mean(r)
    return np.array([x - centre for x in r], dtype=float)
