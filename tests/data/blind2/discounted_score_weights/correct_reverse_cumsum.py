"""correct: sums gamma**k r_k over k >= t with a reversed cumulative sum, never forming G_t"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.array(rewards, dtype=np.float64)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not (0 <= gamma <= 1):
        raise ValueError("gamma must be in [0, 1]")
    if r.size == 0:
        return r
    discounted = np.power(float(gamma), np.arange(r.size)) * r
    return np.cumsum(discounted[::-1])[::-1]
