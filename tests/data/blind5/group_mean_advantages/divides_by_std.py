"""Also divides the centred rewards by their standard deviation, returning z-scores instead of plain centred advantages."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    s = centred.std()
    return centred / s if s > 0 else centred
