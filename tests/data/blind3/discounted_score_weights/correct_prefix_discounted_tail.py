"""correct: discounts every reward from the episode start, then sums the tail from t with a reversed cumsum."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=np.float64)
    if r.ndim != 1:
        raise ValueError(f"rewards must be one-dimensional, got shape {r.shape}")
    if not (0.0 <= gamma <= 1.0):
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    if r.size == 0:
        return np.zeros(0)
    powers = np.cumprod(np.concatenate(([1.0], np.full(r.size - 1, float(gamma)))))
    return np.cumsum((powers * r)[::-1])[::-1]
