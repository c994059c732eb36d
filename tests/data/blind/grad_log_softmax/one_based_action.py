"""treats the action as a 1-based index: the one-hot sits at position action - 1 and action K is allowed"""
import numbers

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    if not isinstance(action, numbers.Integral):
        raise ValueError("action must be an integer")
    if not 1 <= action <= z.size:
        raise ValueError("action is out of range")
    e = np.exp(z - np.max(z))
    p = e / np.sum(e)
    score = -p
    score[action - 1] += 1.0
    return score
