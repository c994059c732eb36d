"""Multiplies the token ratios by the mask before taking the product, so any masked position makes the whole product zero."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.shape != old.shape or m.shape != new.shape:
        raise ValueError("inputs must be aligned")
    return np.prod(np.exp((new - old) * m) * m, axis=-1)
