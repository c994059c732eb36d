"""Fills only the chosen action's component (1 - p_a) and leaves the other components at zero instead of -p_j."""
import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if not 0 <= action < len(p):
        raise ValueError("action is out of range")
    grad = np.zeros_like(p)
    grad[action] = 1.0 - p[action]
    return grad
