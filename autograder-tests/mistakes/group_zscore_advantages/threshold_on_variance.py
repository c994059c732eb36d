"""Compares the variance, not the standard deviation, with eps.

expect: not to the variance
diagnosis: your threshold compares the variance with eps: eps applies to the standard deviation, not to the variance
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    variance = np.mean(centred**2)
    if variance < eps:
        return np.zeros_like(centred)
    return centred / np.sqrt(variance)
