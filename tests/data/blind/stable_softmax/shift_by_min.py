"""subtracts the smallest logit instead of the largest, so exp still overflows when the logits are spread widely"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    shifted = z - np.min(z)
    e = np.exp(shifted)
    return e / np.sum(e)
