"""Converts the action with int(), so a non-integer action such as 1.5 is truncated instead of rejected."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    a = int(action)
    if not 0 <= a < z.size:
        raise ValueError("action out of range")
    e = np.exp(z - z.max())
    score = -e / e.sum()
    score[a] += 1.0
    return score
