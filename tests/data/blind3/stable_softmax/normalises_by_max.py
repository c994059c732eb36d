"""Divides the exponentials by their largest value instead of their sum, so the result does not sum to one."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    e = np.exp(z - z.max())
    return e / e.max()
