"""Takes |g(a)|^2 as (1 - pi(a))^2, keeping only the action's own component of the score vector."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(x - x.max())
    p = e / e.sum()
    weight = p * (1.0 - p) ** 2
    return float(np.sum(weight * q) / np.sum(weight))
