"""Takes the squared norms of the score matrix's columns instead of its rows (one score vector per action)."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    p = stable_softmax(z)
    scores = np.eye(z.size) - p[None, :]
    sq = np.sum(scores ** 2, axis=0)
    return float(np.sum(p * sq * q) / np.sum(p * sq))
