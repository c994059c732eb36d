"""Uses only the action's own score component (1 - pi(a))^2 instead of the squared norm of the whole score vector."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    p = stable_softmax(z)
    w = p * (1.0 - p) ** 2
    return float(np.dot(w, q) / np.sum(w))
