"""Averages the token ratios over the response instead of multiplying them."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.shape != old.shape or m.shape != new.shape:
        raise ValueError("inputs must be aligned")
    r = np.exp(np.where(m > 0, new - old, 0.0))
    return (r * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
