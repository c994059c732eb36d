"""correct: subtracts the log-sum-exp (computed around the maximum) and exponentiates once"""

import numpy as np


def stable_softmax(logits):
    z = np.array(logits, dtype=np.float64)
    if z.ndim != 1 or len(z) < 1:
        raise ValueError("logits must be a non-empty one-dimensional array")
    top = z.max()
    log_norm = top + np.log(np.exp(z - top).sum())
    return np.exp(z - log_norm)
