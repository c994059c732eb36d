"""correct: the mean is the dot product with uniform weights 1/G."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    return r - np.dot(np.full(r.size, 1.0 / r.size), r)
