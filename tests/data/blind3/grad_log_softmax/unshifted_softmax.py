"""Computes the softmax without subtracting the maximum logit, so large logits give nan scores."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not 0 <= action < z.size:
        raise ValueError("action must be an integer in [0, K)")
    p = np.exp(z) / np.sum(np.exp(z))
    score = -p
    score[action] += 1.0
    return score
