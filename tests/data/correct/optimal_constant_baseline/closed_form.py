"""The squared norms in closed form, |g(a)|^2 = 1 - 2 pi(a) + sum_k pi(k)^2."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    p = np.exp(z - np.max(z))
    p /= p.sum()
    weights = p * (1.0 - 2.0 * p + np.sum(p ** 2))
    return float(np.dot(weights, q) / np.sum(weights))
