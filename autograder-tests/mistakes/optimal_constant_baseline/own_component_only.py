"""Squares only the sampled action's component of the score: |g(a)|^2 taken as (1 - pi(a))^2.

expect: include every component
diagnosis: your squared norm is (1 - pi(a))^2: it must include every component of g(a) = onehot(a) - pi
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    w = p * (1.0 - p) ** 2
    return float(np.sum(w * q) / np.sum(w))
