"""Sums the token ratios over the response tokens instead of multiplying them."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must be [B, L] of one shape")
    on = m != 0
    log_ratio = np.where(on, new, 0.0) - np.where(on, old, 0.0)
    return np.sum(np.where(on, np.exp(log_ratio), 0.0), axis=1)
