"""Weights the action values by p_a times the score norm instead of the squared score norm."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    norms = np.linalg.norm(np.eye(len(p)) - p, axis=1)
    w = p * norms
    return float(np.sum(w * q) / np.sum(w))
