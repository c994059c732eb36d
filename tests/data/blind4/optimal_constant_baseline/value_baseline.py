"""Returns the value V = sum_a pi(a) Q(a) instead of the score-norm weighted b*."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(x - x.max())
    p = e / e.sum()
    return float(np.dot(p, q))
