"""Works in a copy that keeps the input's dtype, so integer logits give truncated probabilities.

expect: integer logits included
diagnosis: your function computes in the input's dtype, so plain lists of integer logits included give truncated
    probabilities: compute on a float copy
"""

import numpy as np


def stable_softmax(logits):
    p = np.array(logits)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("logits must be a non-empty vector")
    p -= p.max()
    p[:] = np.exp(p)
    return p / p.sum()
