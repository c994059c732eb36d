"""weights by the score norm |g(a)| instead of its square"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(z - np.max(z))
    pi = e / e.sum()

    g = np.eye(z.size) - pi
    w = pi * np.linalg.norm(g, axis=1)
    return float(np.sum(w * q) / np.sum(w))
