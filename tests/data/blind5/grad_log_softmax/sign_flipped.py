"""Returns softmax minus one-hot (the gradient of the negative log-probability) instead of one-hot minus softmax."""
import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if not 0 <= action < len(p):
        raise ValueError("action is out of range")
    g = p.copy()
    g[action] -= 1.0
    return g
