"""Fills an output allocated like the input, so integer rewards give truncated weights.

expect: integer rewards included
diagnosis: your weights are written into an array of the rewards' dtype, so plain lists of integer rewards included
    give truncated weights: compute in floats
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards)
    g = reward_to_go(r, gamma)
    out = np.zeros_like(r)
    for t in range(len(g)):
        out[t] = gamma**t * g[t]
    return out
