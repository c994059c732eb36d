"""does not check the input is one-dimensional: a 2-D array is softmaxed over all its entries instead of raising ValueError"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.size == 0:
        raise ValueError("logits must not be empty")
    e = np.exp(z - np.max(z))
    return e / e.sum()
