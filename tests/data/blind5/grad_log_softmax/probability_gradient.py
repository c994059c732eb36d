"""Returns the gradient of the probability p_a, i.e. p_a * (e_a - p), instead of the gradient of log p_a."""
import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if not 0 <= action < len(p):
        raise ValueError("action is out of range")
    e = np.zeros_like(p)
    e[action] = 1.0
    return p[action] * (e - p)
