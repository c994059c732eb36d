"""does not reject a negative action: Python indexing wraps it to an action counted from the end instead of raising ValueError"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError("action must be an integer")
    if action >= z.size:
        raise ValueError("action out of range")
    e = np.exp(z - np.max(z))
    p = e / e.sum()
    result = -p
    result[action] += 1.0
    return result
