"""Weights every step by the discounted return of the whole episode (no reward-to-go).

expect: return of the whole episode
diagnosis: your weights are the discounted return of the whole episode at every step: the score at step t only takes
    the rewards from step t on
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    total = np.sum(gamma ** np.arange(len(r), dtype=float) * r)
    return np.full(len(r), total)
