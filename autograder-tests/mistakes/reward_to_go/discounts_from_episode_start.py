"""Discounts every reward by gamma to the power of its own time step k, counted from the episode's start.

expect: from the start of the episode
diagnosis: your returns discount each reward by gamma^k, counted from the start of the episode: G_t discounts the
    rewards from step t on, so the reward of step t itself is never discounted
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    discounted = r * gamma ** np.arange(len(r), dtype=float)
    return np.cumsum(discounted[::-1])[::-1].copy()
