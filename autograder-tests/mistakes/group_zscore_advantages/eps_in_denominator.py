"""Adds eps to the denominator instead of using it as a threshold.

expect: added to the denominator
diagnosis: your z-scores divide by std + eps: eps is added to the denominator although it is only a threshold below
    which the result is zeros
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    return centred / (np.std(centred) + eps)
