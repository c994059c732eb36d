"""Computes the mean as sum / (G - 1), mixing up the group mean with the leave-one-out denominator."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    denom = max(r.size - 1, 1)
    return r - r.sum() / denom
