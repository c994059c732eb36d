"""correct: reverse cumulative sum of gamma**k * r_k (tail sums of the literal objective) instead of gamma**t * G_t"""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if gamma < 0.0 or gamma > 1.0 or gamma != gamma:
        raise ValueError("gamma must lie in [0, 1]")
    discounted = np.power(float(gamma), np.arange(r.size, dtype=float)) * r
    return np.cumsum(discounted[::-1])[::-1].astype(float)
