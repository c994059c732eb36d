"""Multiplies the whole undiscounted future sum by one factor gamma (r_t + gamma * sum of later rewards) instead of compounding the discount per step."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    tail = np.cumsum(r[::-1])[::-1]        # sum_{k>=t} r_k
    later = tail - r                        # sum_{k>t} r_k
    return r + gamma * later
