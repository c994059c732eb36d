"""correct: uses np.std (ddof=0) on the raw rewards and a fresh zero array for the no-signal case."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=np.float64)
    if r.ndim != 1 or r.shape[0] == 0:
        raise ValueError(f"rewards must be a non-empty vector, got shape {r.shape}")
    if not eps >= 0:
        raise ValueError(f"eps must be non-negative, got {eps}")
    sigma = np.std(r, ddof=0)
    if sigma == 0 or sigma < eps:
        return np.zeros(r.shape[0])
    return (r - np.mean(r)) / sigma
