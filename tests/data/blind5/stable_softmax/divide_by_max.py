"""Normalises the shifted exponentials by their largest value instead of their sum, so the result does not sum to one."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be one-dimensional")
    e = np.exp(z - np.max(z))
    return e / np.max(e)
