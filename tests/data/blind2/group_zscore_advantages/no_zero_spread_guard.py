"""always divides by the standard deviation, so a constant group (or a group of one) gives nan instead of zeros"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    c = r - r.mean()

    return c / c.std()
