"""Subtracts the maximum in place, which changes the caller's float array of logits."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    z -= z.max()
    np.exp(z, out=z)
    return z / z.sum()
