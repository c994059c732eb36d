"""clips the logits to [-50, 50] instead of subtracting the maximum, which changes the probabilities when a logit lies outside that range"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    shifted = np.clip(z, -50.0, 50.0)
    e = np.exp(shifted)
    return e / np.sum(e)
