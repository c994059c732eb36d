"""Adds eps to the standard deviation instead of using it as a threshold."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    return (r - r.mean()) / (r.std() + eps)
