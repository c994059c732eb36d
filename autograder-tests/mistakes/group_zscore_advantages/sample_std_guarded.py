"""Divides by the sample standard deviation (ddof=1), with a group of one given zeros before it is computed.

expect: sample standard deviation
diagnosis: your z-scores divide by the sample standard deviation (ddof=1): use the population standard deviation
    (denominator G)
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    if centred.size == 1:  # ddof=1 has no value for one response: that group is constant anyway
        return np.zeros_like(centred)
    spread = centred.std(ddof=1)
    return np.zeros_like(centred) if spread < eps else centred / spread
