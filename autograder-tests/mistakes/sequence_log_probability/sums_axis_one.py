"""Hard-codes axis=1 for the sum, which is the token axis only for [B, L] inputs.

expect: the sum must run over the last (token) axis
diagnosis: your sums run over axis 1: the sum must run over the last (token) axis, whatever the number of leading axes
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(np.where(m != 0, lp, 0.0), axis=1)
