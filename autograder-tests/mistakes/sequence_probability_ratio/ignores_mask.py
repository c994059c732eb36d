"""Multiplies the token ratios of every position, ignoring the mask.

expect: the mask is ignored
diagnosis: your product takes every position: the mask is ignored, but positions where it is 0 must contribute the
    factor 1
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.exp(np.sum(new - old, axis=1))
