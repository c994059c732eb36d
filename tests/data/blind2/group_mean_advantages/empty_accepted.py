"""does not reject an empty group: returns an empty array (with a mean-of-empty warning) instead of raising ValueError"""

import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be a vector")
    return r - r.mean()
