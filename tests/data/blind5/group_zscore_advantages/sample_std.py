"""Normalises by the sample standard deviation (denominator G - 1) instead of the population standard deviation."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    if len(centred) < 2:
        return np.zeros_like(centred)
    scale = float(np.std(centred, ddof=1))
    if scale < eps:
        return np.zeros_like(centred)
    return centred / scale
