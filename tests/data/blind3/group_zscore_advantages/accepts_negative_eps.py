"""Never checks eps, so a negative threshold is accepted instead of raising ValueError."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    std = float(np.sqrt(np.mean(centred ** 2)))
    if std < eps or std == 0.0:
        return np.zeros_like(centred)
    return centred / std
