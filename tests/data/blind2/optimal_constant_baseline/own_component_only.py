"""takes |g(a)|^2 as (1 - pi(a))^2, forgetting the other components -pi(b) of the score vector"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(z - np.max(z))
    pi = e / e.sum()

    w = pi * (1.0 - pi) ** 2
    return float(np.sum(w * q) / np.sum(w))
