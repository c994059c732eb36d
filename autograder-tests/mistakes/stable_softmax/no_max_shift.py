"""Exponentiates the raw logits, without subtracting the maximum.

expect: subtract the largest logit
diagnosis: your function exponentiates the raw logits, which overflows: subtract the largest logit before
    exponentiating
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    e = np.exp(z)
    return e / e.sum()
