"""Reuses the caller's logits array as the output buffer.

expect: modifies the caller's logits
diagnosis: your function writes the score into the caller's array: it modifies the caller's logits; work on a copy
"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)  # no copy for a float array
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(z):
        raise ValueError("bad action")
    z -= z.max()
    np.exp(z, out=z)
    z /= -z.sum()
    z[action] += 1.0
    return z
