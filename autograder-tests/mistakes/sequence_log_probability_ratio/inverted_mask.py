"""Reads the mask the wrong way round: sums the log-ratios where the mask is 0.

expect: mask is used inverted
diagnosis: your mask is used inverted: you sum the log-ratios where the mask is 0 instead of where it is 1
"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.sum(np.where(m == 0, new - old, 0.0), axis=1)
