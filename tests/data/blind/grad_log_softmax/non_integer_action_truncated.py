"""accepts a non-integer action such as 1.7 and truncates it with int() instead of raising ValueError"""
import numbers

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    action = int(action)
    if not 0 <= action < z.size:
        raise ValueError("action is out of range")
    e = np.exp(z - np.max(z))
    p = e / np.sum(e)
    score = -p
    score[action] += 1.0
    return score
