"""Centres each reward on the mean of the other responses (RLOO) instead of the whole group's mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    with np.errstate(divide="ignore", invalid="ignore"):
        return r - (r.sum() - r) / (r.size - 1)
