"""Checks action > K instead of action >= K, so action == K gets through and fails with IndexError instead of ValueError."""
import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    K = p.size
    if action < 0 or action > K:
        raise ValueError("action is out of range")
    out = -p
    out[action] = out[action] + 1.0
    return out
