"""does not reject an empty logits vector (returns an empty array instead of raising ValueError)"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be a non-empty one-dimensional array")
    if z.size == 0:
        return z
    shifted = z - np.max(z)
    e = np.exp(shifted)
    return e / np.sum(e)
