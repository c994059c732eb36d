"""divides the raw rewards by the standard deviation, forgetting to subtract the group mean"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    c = r - r.mean()

    s = c.std()
    if s < eps:
        return np.zeros_like(c)
    return r / s
