"""Adds eps to the standard deviation in the denominator instead of using it as a zero threshold."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    return (r - r.mean()) / (r.std() + eps)
