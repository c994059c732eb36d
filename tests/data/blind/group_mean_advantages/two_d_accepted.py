"""does not reject a 2-D array of rewards: centres it on the mean of all its entries"""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r - np.mean(r)
