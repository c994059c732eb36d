"""Sums over the first axis (the batch) instead of the last axis (the tokens)."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is not None:
        m = np.asarray(mask, dtype=float)
        if m.shape != lp.shape:
            raise ValueError("mask must match token_log_probs")
        lp = np.where(m != 0, lp, 0.0)
    return lp.sum(axis=0)
