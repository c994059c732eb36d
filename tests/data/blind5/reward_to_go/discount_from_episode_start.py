"""Discounts each later reward by gamma**k counted from the episode start instead of gamma**(k-t) counted from step t."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    disc = gamma ** np.arange(len(r), dtype=float) * r
    return np.cumsum(disc[::-1])[::-1]
