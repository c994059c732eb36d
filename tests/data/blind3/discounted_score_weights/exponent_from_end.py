"""Counts the outer discount exponent from the end of the episode, gamma**(T - 1 - t), instead of from its start."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    T = len(g)
    return gamma ** np.arange(T - 1, -1, -1, dtype=float) * g
