"""Centres the logits by their mean instead of shifting by the maximum.

expect: shifts the logits by their mean
diagnosis: your function shifts the logits by their mean: a masked action (logit -inf) then gives nan, and far apart
    logits overflow; shift by the maximum
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    e = np.exp(z - z.mean())
    return e / e.sum()
