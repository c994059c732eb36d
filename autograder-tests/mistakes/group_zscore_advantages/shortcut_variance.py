"""Computes the variance as mean(R^2) - mean(R)^2, which cancels catastrophically for a large common offset.

expect: large offset
diagnosis: your variance is mean(R^2) - mean(R)^2, which cancels catastrophically when the rewards share a large
    offset: centre first, then average the squared deviations
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    scale = np.sqrt(max(np.mean(r**2) - np.mean(r) ** 2, 0.0))
    if scale < eps:
        return np.zeros_like(r)
    return (r - r.mean()) / scale
