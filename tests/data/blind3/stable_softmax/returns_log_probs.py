"""Returns the log-softmax (log-probabilities) instead of the probabilities."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    shifted = z - z.max()
    return shifted - np.log(np.sum(np.exp(shifted)))
