"""Also divides by the group's standard deviation, returning z-scores instead of centred rewards."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    std = centred.std()
    return centred / std if std > 0 else centred
