"""Checks the mask's shape, then sums every position anyway.

expect: the mask is ignored
diagnosis: your sums count every position: the mask is ignored, but positions where it is 0 (prompt, padding) must not
    count
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(lp, axis=-1)
