"""Returns exp(z - max z) without dividing by the sum.

expect: do not sum to one
diagnosis: your probabilities do not sum to one: after exponentiating the shifted logits, divide by their sum
"""

import numpy as np


def stable_softmax(logits):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    return np.exp(z - z.max())
