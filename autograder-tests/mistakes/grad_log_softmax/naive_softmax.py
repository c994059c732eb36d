"""Computes the probabilities with exp(logits) / sum, which overflows for large logits.

expect: overflows for large logits
diagnosis: your probabilities come from exp(logits) / sum, which overflows for large logits: subtract the largest
    logit first (reuse stable_softmax)
"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(z):
        raise ValueError("bad action")
    e = np.exp(z)
    g = -e / e.sum()
    g[action] += 1.0
    return g
