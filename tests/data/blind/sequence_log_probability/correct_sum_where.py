"""correct: passes the mask as the where= argument of np.sum instead of zeroing masked entries"""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    values = np.asarray(token_log_probs, dtype=float)
    keep = np.ones(values.shape, dtype=bool) if mask is None else np.asarray(mask) != 0
    if keep.shape != values.shape:
        raise ValueError("mask must have the shape of token_log_probs")
    return np.sum(values, axis=-1, where=keep)
