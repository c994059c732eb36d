"""accumulates in the forward direction, discounting past rewards (sum over k <= t of gamma**(t-k) r_k)"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")

    result = np.empty_like(r)
    running = 0.0
    for t in range(len(r)):
        running = r[t] + gamma * running
        result[t] = running
    return result
