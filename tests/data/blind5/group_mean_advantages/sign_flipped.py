"""Returns mean minus reward instead of reward minus mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    return np.mean(r) - r
