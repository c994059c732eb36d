"""does not reject an empty rewards vector (returns an empty array instead of raising ValueError)"""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be a non-empty vector")
    return r - np.mean(r)
