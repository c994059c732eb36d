"""Returns V = sum_a pi(a) Q(a) instead of weighting each action by its squared score norm."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    p = stable_softmax(z)
    return float(np.sum(p * q))
