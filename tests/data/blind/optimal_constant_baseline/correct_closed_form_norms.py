"""correct: uses the closed form |g(a)|^2 = 1 - 2 pi(a) + sum_b pi(b)**2 instead of building the score vectors"""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.ndim != 1 or len(z) != len(q) or len(z) < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    pi = np.exp(z - np.logaddexp.reduce(z))
    norm2 = 1.0 - 2.0 * pi + np.dot(pi, pi)
    w = pi * norm2
    return float(np.dot(w, q) / w.sum())
