"""Subtracts the smallest logit instead of the largest, which still overflows for a wide spread of logits."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    e = np.exp(z - np.min(z))
    return e / np.sum(e)
