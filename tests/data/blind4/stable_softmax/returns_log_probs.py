"""Returns the log-softmax (log-probabilities) instead of the probabilities."""
import numpy as np


def stable_softmax(logits):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    shifted = x - x.max()
    return shifted - np.log(np.exp(shifted).sum())
