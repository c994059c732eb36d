"""Subtracts the raw logits from the one-hot vector instead of their softmax."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not 0 <= action < z.size:
        raise ValueError("action must be an integer in [0, K)")
    onehot = np.zeros(z.size)
    onehot[action] = 1.0
    return onehot - z
