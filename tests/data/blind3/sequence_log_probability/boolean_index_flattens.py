"""Selects the response tokens by boolean indexing, which flattens the batch into one total instead of one sum per sequence."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.sum(axis=-1)
    m = np.asarray(mask)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.asarray(lp[m.astype(bool)].sum())
