"""correct: computes log-softmax through a shifted log-sum-exp, then exponentiates."""
import numpy as np


def stable_softmax(logits):
    z = np.array(logits, dtype=np.float64)
    if z.ndim != 1 or z.shape[0] == 0:
        raise ValueError(f"logits must be a non-empty 1-D array, got shape {z.shape}")
    top = z.max()
    log_norm = top + np.log(np.exp(z - top).sum())
    return np.exp(z - log_norm)
