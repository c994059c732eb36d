"""Sums over the first (batch) axis instead of the last (token) axis."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    x = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return x.sum(axis=0)
    m = np.asarray(mask, dtype=float)
    if m.shape != x.shape:
        raise ValueError("mask shape differs from token_log_probs")
    return np.where(m != 0, x, 0.0).sum(axis=0)
