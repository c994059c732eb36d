"""Zeroes the masked log-probs in the caller's array before summing.

expect: modifies its input arrays
diagnosis: your function zeroes masked log-probs in the caller's array: it modifies its input arrays
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    lp[m == 0] = 0.0
    return np.sum(lp, axis=-1)
