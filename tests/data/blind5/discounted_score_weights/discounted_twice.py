"""Discounts every reward from the episode start inside the sum and then multiplies by gamma**t again, applying the outer discount twice."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    T = len(r)
    weights = np.zeros(T)
    for t in range(T):
        inner = sum(gamma ** k * r[k] for k in range(t, T))  # already gamma**t * G_t
        weights[t] = gamma ** t * inner
    return weights
