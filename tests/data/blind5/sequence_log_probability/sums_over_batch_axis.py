"""Sums over the first (batch) axis instead of the last (token) axis."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is not None:
        m = np.asarray(mask, dtype=float)
        if m.shape != lp.shape:
            raise ValueError("mask must match token_log_probs")
        lp = lp * m
    return lp.sum(axis=0)
