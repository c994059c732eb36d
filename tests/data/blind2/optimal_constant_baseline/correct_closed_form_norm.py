"""correct: uses the closed form |g(a)|^2 = 1 - 2 pi(a) + sum_b pi(b)^2 instead of building score vectors"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.array(logits, dtype=np.float64)
    q = np.array(action_values, dtype=np.float64)
    if z.ndim != 1 or q.ndim != 1 or len(z) != len(q) or len(z) < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    log_p = z - z.max()
    log_p -= np.log(np.exp(log_p).sum())
    p = np.exp(log_p)
    sq_norm = 1.0 - 2.0 * p + np.dot(p, p)
    weights = p * sq_norm
    return float(np.dot(weights, q) / weights.sum())
