"""Correct sums but no shape check (a mask of another shape broadcasts), and it needs arrays.

expect: must raise ValueError
diagnosis: your function checks no shapes and needs arrays: a mask whose shape differs from token_log_probs must raise
    ValueError
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    if mask is None:
        return token_log_probs.sum(axis=-1)
    return np.where(mask != 0, token_log_probs, 0.0).sum(axis=-1)
