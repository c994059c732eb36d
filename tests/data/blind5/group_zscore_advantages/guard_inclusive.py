"""Zeroes the advantages when the std is less than OR EQUAL to eps, so a std exactly at eps is treated as constant."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    scale = float(np.sqrt(np.mean(centred ** 2)))
    if scale <= eps:
        return np.zeros_like(centred)
    return centred / scale
