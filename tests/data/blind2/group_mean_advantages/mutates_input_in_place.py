"""subtracts the mean in place on np.asarray(rewards), overwriting the caller's float array (and failing on integer arrays)"""

import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    r -= r.mean()
    return r
