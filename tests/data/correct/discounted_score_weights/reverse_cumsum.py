"""gamma^t G_t = sum over k >= t of gamma^k r_k: a reverse cumulative sum of the discounted rewards."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    discounted = np.power(float(gamma), np.arange(len(r))) * r
    return np.cumsum(discounted[::-1])[::-1]
