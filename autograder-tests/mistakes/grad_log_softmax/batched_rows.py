"""Computes its own softmax along the last axis, so a 2-D input gives a 2-D result instead of ValueError.

expect: must raise ValueError
diagnosis: your function accepts 2-D logits and returns a 2-D result: logits that are not a one-dimensional array must
    raise ValueError
"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < z.shape[-1]:
        raise ValueError("bad action")
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    g = -e / e.sum(axis=-1, keepdims=True)
    g[..., action] += 1.0
    return g
