"""Computes gamma^t as exp(t * log gamma): at gamma = 0 the first weight is exp(0 * -inf) = NaN.

expect: gamma^0 must be 1 even when gamma = 0
diagnosis: your discounts come from exp(t * log gamma), which is NaN at gamma = 0: gamma^0 must be 1 even when gamma =
    0
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    return np.exp(np.arange(len(g)) * np.log(gamma)) * g
