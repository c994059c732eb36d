"""Builds gamma^t as cumprod([1, gamma, gamma, ...]) with np.full(T - 1, gamma), which fails for T = 0.

expect: empty episode
diagnosis: your discounts gamma^t are built for T >= 1 only: an empty episode (T = 0) must give an empty array
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    discounts = np.cumprod(np.concatenate([[1.0], np.full(len(g) - 1, gamma)]))
    return discounts * g
