"""Divides by the sample standard deviation (ddof=1) instead of the population one."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    if r.size == 1:
        return np.zeros(1)
    std = r.std(ddof=1)
    if std < eps or std == 0:
        return np.zeros_like(r)
    return (r - r.mean()) / std
