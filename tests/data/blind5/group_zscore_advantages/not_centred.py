"""Divides the raw rewards by the standard deviation without subtracting the group mean first."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    s = r.std()
    if s < eps:
        return np.zeros_like(r)
    return r / s
