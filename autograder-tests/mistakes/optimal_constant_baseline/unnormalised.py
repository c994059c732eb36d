"""Forgets to divide by the sum of the weights.

expect: weighted average
diagnosis: your b* is not divided by the sum of the weights: b* is a weighted average of the action values
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    w = p * np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    return float(np.sum(w * q))
