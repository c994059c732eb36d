"""starts the recursion from rewards[-1], which raises IndexError on an empty episode (T = 0 is allowed)"""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    returns = np.zeros_like(r)
    running = r[-1]
    returns[-1] = running
    for t in range(len(r) - 2, -1, -1):
        running = r[t] + gamma * running
        returns[t] = running
    return returns
