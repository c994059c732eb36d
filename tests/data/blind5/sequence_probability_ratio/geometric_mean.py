"""Exponentiates the mean token log-ratio (a per-token geometric mean) instead of the summed log-ratio."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.shape != old.shape or m.shape != new.shape:
        raise ValueError("inputs must be aligned")
    n = np.maximum(m.sum(axis=-1), 1.0)
    return np.exp(((new - old) * m).sum(axis=-1) / n)
