"""Averages the log-probabilities over the response tokens instead of summing them."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    x = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return x.sum(axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != x.shape:
        raise ValueError("mask shape differs from token_log_probs")
    keep = m != 0
    total = np.where(keep, x, 0.0).sum(axis=-1)
    return total / np.maximum(keep.sum(axis=-1), 1)
