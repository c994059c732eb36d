"""Uses the outer factor gamma**(t+1) instead of gamma**t, counting time from one."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    steps = np.arange(1, len(g) + 1, dtype=float)
    return gamma ** steps * g
