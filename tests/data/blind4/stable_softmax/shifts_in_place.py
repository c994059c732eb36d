"""Shifts the logits in place, so a caller's float array is overwritten with logits minus their max."""
import numpy as np


def stable_softmax(logits):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    x -= x.max()
    np.exp(x, out=x)
    x /= x.sum()
    return x
