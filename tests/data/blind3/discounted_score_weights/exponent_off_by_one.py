"""Uses gamma**(t + 1) instead of gamma**t as the outer discount (counts steps from one)."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    return gamma ** np.arange(1, len(g) + 1, dtype=float) * g
