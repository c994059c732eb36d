"""Applies softmax row by row to a 2-D input instead of rejecting it.

expect: must raise ValueError
diagnosis: your function applies softmax to each row of a 2-D input: logits that are not a one-dimensional array must
    raise ValueError
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.size == 0:
        raise ValueError("no logits")
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
