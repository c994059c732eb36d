"""Weights by the score norm |g(a)| instead of its square |g(a)|^2."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    p = stable_softmax(z)
    scores = np.eye(z.size) - p
    norms = np.linalg.norm(scores, axis=1)
    return float(np.sum(p * norms * q) / np.sum(p * norms))
