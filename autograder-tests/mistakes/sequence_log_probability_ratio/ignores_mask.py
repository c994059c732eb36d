"""Sums the token log-ratios over every position, ignoring the mask.

expect: the mask is ignored
diagnosis: your log-ratios sum every position: the mask is ignored, but positions where it is 0 must not count
"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.sum(new - old, axis=1)
