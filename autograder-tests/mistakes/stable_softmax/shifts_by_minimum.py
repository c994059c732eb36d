"""Shifts the logits by their minimum instead of their maximum.

expect: other than their maximum
diagnosis: your function shifts the logits by their minimum: shifting by something other than their maximum leaves
    exponents that overflow
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    e = np.exp(z - z.min())
    return e / e.sum()
