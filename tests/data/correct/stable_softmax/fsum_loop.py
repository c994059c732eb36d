"""One exponential per logit in a Python loop, summed exactly with math.fsum."""
import math

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    top = max(z.tolist())
    weights = [math.exp(x - top) for x in z.tolist()]
    total = math.fsum(weights)
    return np.array([w / total for w in weights])
