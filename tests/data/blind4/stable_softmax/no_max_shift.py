"""Exponentiates the raw logits without subtracting the largest one, so large logits overflow to nan."""
import numpy as np


def stable_softmax(logits):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    e = np.exp(x)
    return e / e.sum()
