"""Treats a missing mask as an array to compare, so calling it without a mask raises instead of summing every position."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must have the shape of token_log_probs")
    return np.where(m != 0, lp, 0.0).sum(axis=-1)
