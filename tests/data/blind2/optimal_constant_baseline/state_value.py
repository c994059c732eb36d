"""returns the state value V = sum_a pi(a) Q(a) instead of weighting by the squared score norms"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("need aligned vectors of at least two actions")
    e = np.exp(z - np.max(z))
    pi = e / e.sum()

    return float(np.sum(pi * q))
