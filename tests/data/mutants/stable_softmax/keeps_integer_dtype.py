"""Works in a copy that keeps the input's dtype, so integer logits give truncated probabilities.

expect: integer logits included
"""
import numpy as np


def stable_softmax(logits):
    p = np.array(logits)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("logits must be a non-empty vector")
    p -= p.max()
    p[:] = np.exp(p)
    return p / p.sum()
