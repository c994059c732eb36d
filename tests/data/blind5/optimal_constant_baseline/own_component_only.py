"""Uses (1 - p_a)**2, only the chosen action's component of the score, as the squared score norm, dropping the sum of p_j**2 over the other actions."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    weight = p * (1.0 - p) ** 2
    return float(weight @ q / weight.sum())
