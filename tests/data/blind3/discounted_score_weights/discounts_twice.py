"""Discounts the rewards by gamma**k first and then takes their discounted return, applying gamma twice."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    return reward_to_go(gamma ** np.arange(len(r)) * r, gamma)
