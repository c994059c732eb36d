"""Exponentiates the raw logits without subtracting the maximum, so large logits overflow and give nan."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be one-dimensional")
    e = np.exp(z)
    return e / e.sum()
