"""Returns mean(R) - R_i, the centred rewards with the wrong sign."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    return np.mean(r) - r
