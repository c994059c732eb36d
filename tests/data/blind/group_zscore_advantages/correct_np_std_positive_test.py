"""correct: uses np.std (ddof=0) and divides only when the spread is positive and at least eps"""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    if not eps >= 0:
        raise ValueError("eps must be non-negative")
    spread = np.std(r)
    if spread > 0 and spread >= eps:
        return (r - r.mean()) / spread
    return np.zeros(r.shape, dtype=float)
