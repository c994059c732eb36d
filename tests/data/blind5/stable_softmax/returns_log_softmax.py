"""Returns the log-probabilities (shifted logits minus log-sum-exp) instead of the probabilities."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be one-dimensional")
    shifted = z - np.max(z)
    return shifted - np.log(np.sum(np.exp(shifted)))
