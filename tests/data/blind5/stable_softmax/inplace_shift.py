"""Subtracts the maximum in place, overwriting the caller's float logits array."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)   # no copy for a float64 input
    if z.ndim != 1:
        raise ValueError("logits must be one-dimensional")
    z -= z.max()
    np.exp(z, out=z)
    return z / z.sum()
