"""Weights Q(a) by |g(a)|^2 alone, forgetting the factor pi(a) of the expectation.

expect: weights each action by |g(a)|^2 alone
diagnosis: your b* weights each action by |g(a)|^2 alone: the weight of action a is pi(a) * |g(a)|^2
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    w = np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    return float(np.sum(w * q) / np.sum(w))
