"""Accumulates rewards forwards from the start of the episode (discounted prefix sums) instead of from step t to the end."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    out = np.empty_like(r)
    running = 0.0
    for t in range(len(r)):
        running = gamma * running + r[t]
        out[t] = running
    return out
