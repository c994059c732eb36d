"""correct: computes the group mean as a plain Python sum divided by the count and returns a fresh array."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be a vector")
    n = r.shape[0]
    if n == 0:
        raise ValueError("an empty group has no mean")
    mean = sum(float(x) for x in r) / n
    return np.array([float(x) - mean for x in r])
