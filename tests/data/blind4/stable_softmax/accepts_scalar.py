"""Wraps the input with atleast_1d, so a scalar (0-d) logit is accepted and returns [1.0] instead of raising."""
import numpy as np


def stable_softmax(logits):
    x = np.atleast_1d(np.asarray(logits, dtype=float))
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    e = np.exp(x - x.max())
    return e / e.sum()
