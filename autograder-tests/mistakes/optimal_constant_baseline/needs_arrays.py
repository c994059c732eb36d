"""Checks the inputs with .shape before converting them, so plain lists fail.

expect: plain Python lists
diagnosis: your function reads .shape of its inputs before converting them: plain Python lists must be accepted like
    arrays
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    if logits.shape != action_values.shape or logits.ndim != 1 or logits.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(logits)
    w = p * np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    return float(np.sum(w * action_values) / np.sum(w))
