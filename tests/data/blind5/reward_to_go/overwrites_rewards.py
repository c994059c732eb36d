"""Accumulates the returns in place in the rewards buffer, overwriting the caller's float array."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    for t in range(len(r) - 2, -1, -1):
        r[t] += gamma * r[t + 1]
    return r
