"""Flattens its input instead of rejecting arrays that are not one-dimensional."""
import numpy as np


def stable_softmax(logits):
    z = np.ravel(np.asarray(logits, dtype=float))
    if z.size == 0:
        raise ValueError("logits must not be empty")
    e = np.exp(z - z.max())
    return e / e.sum()
