"""Weights each action value by its squared score norm but forgets the policy probability p_a in the expectation."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    scores = np.eye(len(p)) - p[None, :]
    sq = np.sum(scores ** 2, axis=1)
    return float(np.sum(sq * q) / np.sum(sq))
