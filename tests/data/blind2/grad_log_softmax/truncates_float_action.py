"""converts the action with int(), so a non-integer action such as 1.5 is truncated instead of raising ValueError"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    action = int(action)
    if not 0 <= action < z.size:
        raise ValueError("action out of range")
    e = np.exp(z - np.max(z))
    p = e / e.sum()
    result = -p
    result[action] += 1.0
    return result
