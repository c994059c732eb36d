"""discounts every reward from the start of the episode (sum of gamma**k r_k over k >= t) instead of from step t"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")

    result = np.empty_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running += gamma ** t * r[t]
        result[t] = running
    return result
