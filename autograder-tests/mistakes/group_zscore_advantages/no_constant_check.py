"""Divides by the standard deviation without a threshold, so a constant group gives nan.

expect: gives nan
diagnosis: your z-scores divide by a standard deviation of 0 for a constant group, which gives nan: below eps the
    result is zeros
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    return centred / np.std(centred)
