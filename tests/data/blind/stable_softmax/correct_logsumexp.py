"""correct: normalises in log space with np.logaddexp.reduce (a log-sum-exp) and exponentiates once"""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or len(z) < 1:
        raise ValueError("logits must be a non-empty one-dimensional array")
    log_normaliser = np.logaddexp.reduce(z)
    return np.exp(z - log_normaliser)
