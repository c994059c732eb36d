"""Subtracts the smallest logit instead of the largest, which still overflows when the logits are far apart."""
import numpy as np


def stable_softmax(logits):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    e = np.exp(x - x.min())
    return e / e.sum()
