"""Divides the centred rewards by the variance instead of the standard deviation."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = r - r.mean()
    var = np.mean(centred ** 2)
    if np.sqrt(var) < eps or var == 0:
        return np.zeros_like(r)
    return centred / var
