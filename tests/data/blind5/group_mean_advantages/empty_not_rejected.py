"""Does not reject an empty group; it returns an empty array instead of raising ValueError."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.size == 0:
        return r.copy()
    return r - r.mean()
