"""starts the backward pass from the last reward, so an empty episode (T = 0) raises IndexError instead of returning an empty array"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")

    result = np.empty_like(r)
    result[-1] = r[-1]
    for t in range(len(r) - 2, -1, -1):
        result[t] = r[t] + gamma * result[t + 1]
    return result
