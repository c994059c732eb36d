"""compares the variance, not the standard deviation, with eps, so groups with a small but real spread become all zeros"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    c = r - r.mean()

    var = np.mean(c ** 2)
    if var < eps:
        return np.zeros_like(c)
    return c / np.sqrt(var)
