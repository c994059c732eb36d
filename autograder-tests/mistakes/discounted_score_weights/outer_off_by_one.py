"""Builds the outer discounts with cumprod of gamma, so step t gets gamma^(t+1).

expect: outer discount is off by one
diagnosis: your outer discount is off by one: step t gets gamma^(t+1); the first step's weight is gamma^0 * G_0
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    return np.cumprod(np.full(len(g), float(gamma))) * g
