"""Multiplies the mask into the log-probabilities in place, overwriting the caller's float array."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is not None:
        m = np.asarray(mask, dtype=float)
        if m.shape != lp.shape:
            raise ValueError("mask must match token_log_probs")
        lp *= m
    return lp.sum(axis=-1)
