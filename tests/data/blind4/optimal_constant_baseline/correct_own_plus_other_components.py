"""correct: splits |g(a)|^2 into the action's own component (1 - pi(a))^2 plus the other components' sum of pi(j)^2."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(x - x.max())
    p = e / e.sum()
    squared_norm = (1.0 - p) ** 2 + (np.sum(p * p) - p * p)
    weight = p * squared_norm
    return float(np.sum(weight * q) / np.sum(weight))
