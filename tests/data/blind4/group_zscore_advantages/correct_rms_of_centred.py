"""correct: the population std is the root mean square of the centred rewards; below eps (or zero) gives zeros."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = r - r.mean()
    std = np.sqrt(np.mean(centred * centred))
    if std == 0.0 or std < eps:
        return np.zeros_like(r)
    return centred / std
