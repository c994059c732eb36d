"""Ignores the eps argument and always uses a fixed threshold of 1e-8.

expect: eps is ignored
diagnosis: your threshold is fixed: eps is ignored, and a standard deviation below the eps passed in must give zeros
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    scale = np.std(centred)
    if scale < 1e-8:
        return np.zeros_like(centred)
    return centred / scale
