"""Normalises by the mean absolute deviation instead of the standard deviation."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    spread = float(np.mean(np.abs(centred)))
    if spread < eps:
        return np.zeros_like(centred)
    return centred / spread
