"""Weights Q(a) by |g(a)|^2 alone, dropping the pi(a) factor of the expectation."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(x - x.max())
    p = e / e.sum()
    sq = 1.0 - 2.0 * p + np.sum(p ** 2)
    return float(np.sum(sq * q) / np.sum(sq))
