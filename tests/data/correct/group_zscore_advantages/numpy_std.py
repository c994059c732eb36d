"""np.std of the centred rewards (population, ddof=0), zeros below the threshold."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    scale = np.std(centred)
    if scale < eps or scale == 0:
        return np.zeros(r.shape)
    return centred / scale
