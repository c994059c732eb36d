"""Subtracts the minimum logit instead of the maximum, so widely spread logits still overflow."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be one-dimensional")
    shifted = z - z.min()   # make everything non-negative
    e = np.exp(shifted)
    return e / np.sum(e)
