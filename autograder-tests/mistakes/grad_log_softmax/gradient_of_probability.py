"""Differentiates pi(a) instead of log pi(a): returns pi(a) * (onehot - pi).

expect: no extra factor pi(action)
diagnosis: your score is the gradient of pi(action), not of log pi(action): there is no extra factor pi(action); the
    score is onehot(action) - softmax(logits)
"""

import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(p):
        raise ValueError("bad action")
    g = -p
    g[action] += 1.0
    return p[action] * g
