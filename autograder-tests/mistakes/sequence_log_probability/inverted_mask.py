"""Reads the mask the wrong way round: sums the prompt and padding positions, where the mask is 0.

expect: mask is used inverted
diagnosis: your mask is used inverted: you sum where the mask is 0 (prompt, padding) instead of where it is 1
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(np.where(m == 0, lp, 0.0), axis=-1)
