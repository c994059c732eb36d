"""correct: normalises through an explicit log-sum-exp around the maximum instead of dividing shifted exponentials by their sum."""
import math
import numpy as np


def stable_softmax(logits):
    z = np.array(logits, dtype=float)  # private copy
    if z.ndim != 1:
        raise ValueError("logits must be a one-dimensional vector")
    top = float(np.max(z))
    log_norm = top + math.log(sum(math.exp(v - top) for v in z))
    return np.exp(z - log_norm)
