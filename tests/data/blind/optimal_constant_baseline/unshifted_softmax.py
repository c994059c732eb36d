"""computes the softmax without subtracting the largest logit, so large logits give nan"""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    e = np.exp(z)
    p = e / np.sum(e)
    scores = np.eye(z.size) - p
    squared_norms = np.sum(scores ** 2, axis=1)
    weights = p * squared_norms
    return float(np.sum(weights * q) / np.sum(weights))
