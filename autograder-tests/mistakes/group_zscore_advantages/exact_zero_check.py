"""Tests the standard deviation for exactly zero, so rounding noise in a constant group gets amplified.

expect: exactly zero
diagnosis: your function tests the standard deviation for exactly zero, so rounding noise of equal rewards is
    amplified: compare with eps instead
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    scale = r.std()
    if scale == 0:
        return np.zeros_like(r)
    return (r - r.mean()) / scale
