"""Divides the raw rewards by their standard deviation, without subtracting the group mean.

expect: the rewards are not centred
diagnosis: your z-scores divide the raw rewards by the standard deviation: the rewards are not centred (subtract the
    group mean first)
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    scale = np.std(r)
    if scale < eps or scale == 0.0:
        return np.zeros_like(r)
    return r / scale
