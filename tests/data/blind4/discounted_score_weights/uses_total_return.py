"""Multiplies gamma**t by the whole-episode return G_0 instead of the reward-to-go G_t."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    total = float(np.sum(r * gamma ** np.arange(len(r))))
    return gamma ** np.arange(len(r)) * total
