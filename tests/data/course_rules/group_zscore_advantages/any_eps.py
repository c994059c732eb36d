"""Right z-scores, but any eps is accepted: only the course rule nonnegative_eps is missed."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    std = float(np.sqrt(np.mean(centred**2)))
    return np.zeros_like(centred) if std < eps or std == 0.0 else centred / std
