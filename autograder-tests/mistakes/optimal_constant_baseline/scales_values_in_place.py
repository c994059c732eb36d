"""Multiplies the caller's action values by the weights in place.

expect: modifies the caller's arrays
diagnosis: your function multiplies the caller's action values in place: it modifies the caller's arrays; work on
    copies
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    w = p * np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    q *= w  # q is the caller's array when it is already float
    return float(np.sum(q) / np.sum(w))
