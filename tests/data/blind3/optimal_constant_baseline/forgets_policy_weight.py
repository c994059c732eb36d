"""Weights Q(a) by |g(a)|^2 alone, leaving out the pi(a) factor of the expectation."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    p = stable_softmax(z)
    sq = np.array([np.sum((np.eye(z.size)[a] - p) ** 2) for a in range(z.size)])
    return float(np.sum(sq * q) / np.sum(sq))
