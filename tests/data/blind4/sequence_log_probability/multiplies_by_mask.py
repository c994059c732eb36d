"""Multiplies by the mask, so a masked -inf or nan becomes nan instead of being ignored."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    x = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return x.sum(axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != x.shape:
        raise ValueError("mask shape differs from token_log_probs")
    with np.errstate(invalid="ignore"):
        return (x * m).sum(axis=-1)
