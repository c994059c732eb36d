"""correct: takes the action's row of an identity matrix and subtracts probabilities from exp(z - logsumexp)"""

import numbers

import numpy as np


def grad_log_softmax(logits, action):
    z = np.array(logits, dtype=np.float64)
    if z.ndim != 1 or len(z) == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    if isinstance(action, bool) or not isinstance(action, numbers.Integral) or not (0 <= action < len(z)):
        raise ValueError("action must be an integer in [0, K)")
    top = z.max()
    log_probs = z - (top + np.log(np.exp(z - top).sum()))
    return np.eye(len(z))[int(action)] - np.exp(log_probs)
