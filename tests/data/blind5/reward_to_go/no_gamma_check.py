"""Never validates gamma, so a discount outside [0, 1] is accepted instead of raising ValueError."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    G = np.empty_like(r)
    acc = 0.0
    for t in range(len(r) - 1, -1, -1):
        acc = r[t] + gamma * acc
        G[t] = acc
    return G
