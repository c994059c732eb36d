"""correct: uses the closed form |g(a)|^2 = 1 - 2 pi(a) + sum_b pi(b)^2 instead of building score vectors."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=np.float64)
    q = np.asarray(action_values, dtype=np.float64)
    if z.ndim != 1 or q.ndim != 1 or z.shape != q.shape or z.shape[0] < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    p = np.exp(z - z.max())
    p /= p.sum()
    norms = 1.0 - 2.0 * p + np.dot(p, p)
    weights = p * norms
    return float(np.dot(weights, q) / weights.sum())
