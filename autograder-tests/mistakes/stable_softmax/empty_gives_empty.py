"""Returns an empty array for empty logits instead of raising ValueError.

expect: must raise ValueError
diagnosis: your function returns an empty array for empty logits: empty logits must raise ValueError
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1:
        raise ValueError("logits must be a vector")
    if z.size == 0:
        return z
    e = np.exp(z - z.max())
    return e / e.sum()
