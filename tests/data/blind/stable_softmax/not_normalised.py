"""forgets to divide by the sum of the exponentials, returning exp(z - max) which does not sum to one"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    shifted = z - np.max(z)
    e = np.exp(shifted)
    return e
