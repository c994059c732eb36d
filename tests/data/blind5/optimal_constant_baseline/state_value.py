"""Returns the state value V = sum_a p_a Q_a instead of weighting the action values by the squared score norm."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    return float(np.dot(p, q))
