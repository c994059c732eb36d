"""also divides the centred rewards by their standard deviation (z-scores instead of centred rewards)"""

import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")

    c = r - r.mean()
    s = c.std()
    return c / s if s > 0 else c
