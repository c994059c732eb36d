"""Subtracts the sampled action's probability pi(a) from every component instead of the vector pi."""
import numbers

import numpy as np


def grad_log_softmax(logits, action):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        raise ValueError("action must be an integer")
    if not 0 <= action < x.size:
        raise ValueError("action out of range")
    e = np.exp(x - x.max())
    p = e / e.sum()
    onehot = np.zeros_like(p)
    onehot[action] = 1.0
    return onehot - p[action]
