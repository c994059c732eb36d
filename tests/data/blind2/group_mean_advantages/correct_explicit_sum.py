"""correct: divides an explicit sum by the count and subtracts with np.subtract on a fresh copy"""

import numpy as np


def group_mean_advantages(rewards):
    r = np.array(rewards, dtype=np.float64, copy=True)
    if r.ndim != 1 or len(r) < 1:
        raise ValueError("rewards must be a non-empty vector")
    centre = np.add.reduce(r) / len(r)
    return np.subtract(r, centre)
