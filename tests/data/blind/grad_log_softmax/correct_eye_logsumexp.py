"""correct: takes the one-hot row from np.eye and the probabilities from exp(z - logsumexp(z))"""
import numbers

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or len(z) == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    if not isinstance(action, numbers.Integral) or action < 0 or action >= len(z):
        raise ValueError("action must be an integer in [0, K)")
    probabilities = np.exp(z - np.logaddexp.reduce(z))
    return np.eye(len(z))[int(action)] - probabilities
