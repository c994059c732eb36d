"""Broadcasts the mask instead of checking its shape, so a mismatched mask is accepted."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    x = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return x.sum(axis=-1)
    m = np.broadcast_to(np.asarray(mask, dtype=float), x.shape)
    return np.where(m != 0, x, 0.0).sum(axis=-1)
