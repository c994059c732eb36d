"""Only checks the upper bound of the action, so a negative action silently wraps around to the last entries instead of raising ValueError."""
import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if action >= len(p):
        raise ValueError("action is out of range")
    result = -p
    result[action] += 1.0
    return result
