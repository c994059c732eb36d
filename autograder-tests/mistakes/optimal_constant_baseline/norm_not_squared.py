"""Weights by pi(a) times the norm |g(a)| instead of its square.

expect: instead of the squared norm
diagnosis: your b* weights with the norm |g(a)| instead of the squared norm |g(a)|^2
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    w = p * np.linalg.norm(np.eye(len(p)) - p, axis=1)
    return float(np.sum(w * q) / np.sum(w))
