"""Subtracts the logits themselves from the one-hot vector instead of the softmax probabilities.

expect: subtracts the logits
diagnosis: your score is onehot(action) - logits: it subtracts the logits where the probabilities belong; the score
    is onehot(action) - softmax(logits)
"""

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < z.size:
        raise ValueError("bad action")
    g = -z
    g[action] += 1.0
    return g
