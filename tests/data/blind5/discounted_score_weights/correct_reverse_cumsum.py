"""correct: sums gamma**k * r_k over k >= t with a reversed cumulative sum instead of multiplying reward_to_go by gamma**t."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.array(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not (0.0 <= gamma <= 1.0):
        raise ValueError("gamma must be in [0, 1]")
    discounted = np.power(float(gamma), np.arange(r.size, dtype=float)) * r
    return np.flip(np.cumsum(np.flip(discounted)))
