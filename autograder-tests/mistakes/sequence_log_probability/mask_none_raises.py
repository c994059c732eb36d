"""Treats mask=None like a given mask, so a call without a mask raises ValueError instead of summing every position.

expect: treats mask=None as a given mask
diagnosis: your function raises when it is called without a mask: it treats mask=None as a given mask, but None means
    there is no mask, and every position counts
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)  # None becomes a 0-d nan: its shape never matches
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.where(m != 0, lp, 0.0).sum(axis=-1)
