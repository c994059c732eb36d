"""Checks the mask's shape but then sums every position, ignoring the mask."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is not None and np.shape(mask) != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(lp, axis=-1)
