"""correct: takes np.std (ddof=0) of the raw rewards and compares it with eps before dividing, instead of the root mean square of the centred rewards."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps is a threshold on a standard deviation and must be >= 0")
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    sigma = float(np.std(r))          # population std, denominator G
    centred = r - r.mean()
    if sigma < eps:
        return np.zeros(r.shape)
    return centred / sigma
