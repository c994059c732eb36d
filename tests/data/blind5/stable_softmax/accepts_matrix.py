"""Does not reject a 2-D input: it normalises over all entries of the matrix instead of raising ValueError."""
import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    e = np.exp(z - np.max(z))
    return e / np.sum(e)
