"""Computes the softmax inline without subtracting the maximum, so large logits overflow to nan."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    ez = np.exp(z)
    p = ez / ez.sum()
    if not 0 <= action < len(p):
        raise ValueError("action is out of range")
    g = -p
    g[action] += 1.0
    return g
