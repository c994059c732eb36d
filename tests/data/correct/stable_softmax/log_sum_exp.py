"""Normalises in log space: p = exp(z - logsumexp(z)), with the log-sum-exp taken around the maximum."""
import numpy as np


def stable_softmax(logits):
    z = np.array(logits, dtype=float)
    if z.ndim != 1 or len(z) == 0:
        raise ValueError("logits must be a non-empty vector")
    top = z.max()
    return np.exp(z - (top + np.log(np.sum(np.exp(z - top)))))
