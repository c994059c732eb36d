"""Masked positions replaced by 0 with np.where before an ordinary sum over the last axis."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.sum(axis=-1)
    keep = np.asarray(mask, dtype=float)
    if keep.shape != lp.shape:
        raise ValueError("mask must have the shape of token_log_probs")
    return np.where(keep != 0, lp, 0.0).sum(axis=-1)
