"""Weights by the norm |g(a)| instead of the squared norm |g(a)|^2."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(x - x.max())
    p = e / e.sum()
    norm = np.sqrt(1.0 - 2.0 * p + np.sum(p ** 2))
    weight = p * norm
    return float(np.sum(weight * q) / np.sum(weight))
