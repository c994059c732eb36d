"""Sums the token log-ratios over every position, ignoring the mask, so prompt and padding columns enter the sequence log-ratio."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    if new.shape != old.shape or np.shape(mask) != new.shape:
        raise ValueError("inputs must be aligned")
    return np.sum(new - old, axis=-1)
