"""Weights the numerator by p_a * ||score||^2 but divides by the unweighted sum of squared norms, so the weights do not normalise."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    sq_norm = 1.0 - 2.0 * p + np.sum(p ** 2)
    numerator = np.sum(p * sq_norm * q)
    denominator = np.sum(sq_norm)
    return float(numerator / denominator)
