"""Builds the outer discounts with cumprod of gamma, so step t gets gamma^(t+1).

expect: outer discount is off by one
"""
import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    return np.cumprod(np.full(len(g), float(gamma))) * g
