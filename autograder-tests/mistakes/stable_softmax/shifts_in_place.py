"""Subtracts the maximum in place, changing the caller's float array.

expect: modifies the caller's logits
diagnosis: your function subtracts the maximum in the caller's array: it modifies the caller's logits; work on a copy
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)  # no copy when logits is already a float array
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    z -= z.max()
    e = np.exp(z)
    return e / e.sum()
