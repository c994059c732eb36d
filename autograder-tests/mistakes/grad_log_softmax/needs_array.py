"""Calls array methods on the logits directly, so a plain list fails.

expect: plain Python lists
diagnosis: your function calls array methods on the logits: plain Python lists of logits must be accepted like arrays
"""

import numpy as np


def grad_log_softmax(logits, action):
    if logits.ndim != 1 or logits.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < logits.size:
        raise ValueError("bad action")
    e = np.exp(logits - logits.max())
    g = -e / e.sum()
    g[action] += 1.0
    return g
