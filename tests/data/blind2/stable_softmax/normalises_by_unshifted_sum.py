"""divides the shifted exponentials by the sum of the unshifted ones, so the result only sums to one when the largest logit is 0"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    return np.exp(z - np.max(z)) / np.sum(np.exp(z))
