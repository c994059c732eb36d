"""Averages the log-probabilities over the response tokens (length-normalised) instead of summing them."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.mean(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    total = np.where(m != 0, lp, 0.0).sum(axis=-1)
    count = (m != 0).sum(axis=-1)
    return total / np.maximum(count, 1)
