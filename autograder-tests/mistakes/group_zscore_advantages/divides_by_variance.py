"""Divides the centred rewards by the variance instead of the standard deviation.

expect: not by the variance
diagnosis: your z-scores divide the centred rewards by the variance, not by the standard deviation: divide by the
    standard deviation, not by the variance
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    variance = np.mean(centred**2)
    if np.sqrt(variance) < eps or variance == 0.0:
        return np.zeros_like(centred)
    return centred / variance
