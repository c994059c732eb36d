"""correct: normalises in log space with a hand-written log-sum-exp, then exponentiates once."""
import numpy as np


def stable_softmax(logits):
    x = np.asarray(logits, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("logits must be a non-empty 1-D array")
    top = np.max(x)
    log_norm = top + np.log(np.sum(np.exp(x - top)))
    return np.exp(x - log_norm)
