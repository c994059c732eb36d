"""Treats a standard deviation equal to eps as below it (<= instead of <).

expect: strictly smaller
diagnosis: your threshold is not strict: a standard deviation equal to eps gives zeros, but only a strictly smaller
    one should
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    scale = np.std(centred)
    if scale <= eps:
        return np.zeros_like(centred)
    return centred / scale
