"""Compares the variance, not the standard deviation, with eps, so small but genuine spreads are zeroed out."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    var = np.mean(centred ** 2)
    if var < eps:
        return np.zeros_like(centred)
    return centred / np.sqrt(var)
