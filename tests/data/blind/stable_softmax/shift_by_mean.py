"""subtracts the mean logit instead of the largest, which overflows when one logit lies far above the mean"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    shifted = z - np.mean(z)
    e = np.exp(shifted)
    return e / np.sum(e)
