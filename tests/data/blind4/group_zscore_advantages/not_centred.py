"""Divides the raw rewards by the std without centring them on the group mean first."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    std = r.std()
    if std < eps or std == 0.0:
        return np.zeros_like(r)
    return r / std
