"""Writes the weights into the caller's rewards array.

expect: modifies the caller's rewards
diagnosis: your function writes the weights into the caller's rewards array: it modifies the caller's rewards; use a
    new array
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)  # no copy for a float array
    r[:] = reward_to_go(r, gamma)
    r *= gamma ** np.arange(len(r), dtype=float)
    return r
