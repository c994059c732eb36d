"""Checks only that the vectors are aligned, so one action is accepted (0/0 gives nan) instead of raising."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    x = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if x.ndim != 1 or q.shape != x.shape or x.size == 0:
        raise ValueError("need aligned vectors")
    e = np.exp(x - x.max())
    p = e / e.sum()
    weight = p * (1.0 - 2.0 * p + np.sum(p ** 2))
    with np.errstate(invalid="ignore"):
        return float(np.sum(weight * q) / np.sum(weight))
