"""Starts the sum at step t+1, leaving the reward of step t itself out of G_t."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    result = np.zeros_like(r)
    future = 0.0
    for t in reversed(range(len(r))):
        result[t] = future          # rewards strictly after t
        future = r[t] + gamma * future
    return result
