"""Sums the masked token log-ratios over axis 0 (the batch) instead of the last (token) axis."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.shape != old.shape or m.shape != new.shape:
        raise ValueError("inputs must be aligned")
    return np.sum((new - old) * m, axis=0)
