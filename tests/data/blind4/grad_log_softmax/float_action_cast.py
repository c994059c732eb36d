"""Casts the action with int(), so a float action such as 1.7 is accepted (truncated) instead of rejected."""
import numpy as np


def grad_log_softmax(logits, action):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty vector")
    action = int(action)
    if not 0 <= action < x.size:
        raise ValueError("action out of range")
    e = np.exp(x - x.max())
    p = e / e.sum()
    onehot = np.zeros_like(p)
    onehot[action] = 1.0
    return onehot - p
