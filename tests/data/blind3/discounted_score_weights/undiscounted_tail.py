"""Multiplies gamma**t by the undiscounted sum of future rewards instead of the discounted return G_t."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    tail = np.cumsum(r[::-1])[::-1]
    return gamma ** np.arange(len(r)) * tail
