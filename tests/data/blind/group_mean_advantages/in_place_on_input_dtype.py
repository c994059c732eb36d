"""centres a copy in place in the input's own dtype, which raises a numpy casting error for integer rewards"""
import numpy as np


def group_mean_advantages(rewards):
    r = np.array(rewards)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    r -= np.mean(r)
    return r
