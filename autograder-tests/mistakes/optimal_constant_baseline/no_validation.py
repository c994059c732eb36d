"""Correct formula but no validation: one action gives 0/0, a length-1 value vector broadcasts.

expect: must raise ValueError
diagnosis: your function checks nothing: inputs that are not aligned vectors of at least two actions must raise
    ValueError
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    p = stable_softmax(logits)
    q = np.asarray(action_values, dtype=float)
    w = p * np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    return float(np.sum(w * q) / np.sum(w))
