"""Uses the sample standard deviation (denominator G - 1) instead of the population one."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    if r.size < 2:
        return np.zeros_like(r)
    std = r.std(ddof=1)
    if std < eps or std == 0.0:
        return np.zeros_like(r)
    return (r - r.mean()) / std
