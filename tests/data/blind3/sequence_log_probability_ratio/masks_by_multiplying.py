"""Multiplies the log-ratios by the mask, so -inf or nan at masked positions turn the sum into nan."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must be [B, L] of one shape")
    on = m != 0
    with np.errstate(invalid="ignore"):
        return np.sum((new - old) * m, axis=1)
