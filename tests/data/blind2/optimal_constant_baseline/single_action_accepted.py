"""only checks that the vectors are aligned, so a single action (K = 1) is not rejected and gives nan instead of ValueError"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size == 0:
        raise ValueError("need aligned vectors")
    e = np.exp(z - np.max(z))
    pi = e / e.sum()
    g = np.eye(z.size) - pi
    w = pi * np.sum(g ** 2, axis=1)
    return float(np.sum(w * q) / np.sum(w))
