"""Returns gamma**t * r_t, the discounted immediate reward, instead of gamma**t times the reward-to-go."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    return gamma ** np.arange(len(r)) * r
