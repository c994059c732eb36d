"""Centres and scales the caller's array in place (np.asarray does not copy a float array).

expect: modifies its input arrays
diagnosis: your function centres and scales the caller's rewards in place: it modifies its input arrays (np.asarray
    does not copy a float array)
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    r -= r.mean()
    scale = np.sqrt(np.mean(r**2))
    if scale < eps:
        return np.zeros_like(r)
    r /= scale
    return r
