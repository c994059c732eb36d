"""Row `action` of the identity minus the probabilities, the probabilities from a log-sum-exp."""
import numbers

import numpy as np


def grad_log_softmax(logits, action):
    z = np.array(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        raise ValueError("action must be an integer")
    if action < 0 or action >= z.size:
        raise ValueError("action out of range")
    top = np.max(z)
    log_p = z - top - np.log(np.exp(z - top).sum())
    return np.eye(z.size)[int(action)] - np.exp(log_p)
