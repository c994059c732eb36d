"""Has no guard for a constant group, so identical rewards give 0/0 = nan instead of zeros."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    scale = np.sqrt(np.mean(centred ** 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return centred / scale
