"""keeps the dtype of the input, so integer rewards give an integer result and discounted returns are truncated"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    result = np.zeros_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        result[t] = running
    return result
