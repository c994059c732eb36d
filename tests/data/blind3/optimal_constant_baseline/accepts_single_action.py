"""Checks only that the inputs are aligned, so a single action (K = 1) returns nan instead of raising."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape:
        raise ValueError("logits and action_values must be aligned vectors")
    p = np.exp(z - z.max())
    p = p / p.sum()
    scores = np.eye(z.size) - p
    sq = np.sum(scores ** 2, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.sum(p * sq * q) / np.sum(p * sq))
