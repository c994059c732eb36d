"""Checks only action < K, so a negative action silently indexes from the end instead of raising."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action >= z.size:
        raise ValueError("action must be an integer below K")
    e = np.exp(z - z.max())
    score = -e / e.sum()
    score[action] += 1.0
    return score
