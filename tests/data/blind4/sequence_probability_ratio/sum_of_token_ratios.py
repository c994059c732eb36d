"""Adds the token ratios over the response tokens instead of multiplying them."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("inputs must share one 2-D shape")
    keep = m != 0
    log_ratio = np.where(keep, new, 0.0) - np.where(keep, old, 0.0)
    return np.where(keep, np.exp(log_ratio), 0.0).sum(axis=1)
