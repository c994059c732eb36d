"""Divides by the sample standard deviation (ddof=1) instead of the population one.

expect: sample standard deviation
diagnosis: your z-scores divide by the sample standard deviation (ddof=1): use the population standard deviation
    (denominator G)
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    scale = np.std(centred, ddof=1)
    if scale < eps:
        return np.zeros_like(centred)
    return centred / scale
