"""Selects the response entries with a boolean index, which flattens the batch and returns one total instead of one sum per sequence."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.asarray(lp[m > 0].sum())
