"""Computes the token log-ratios in place in the caller's new_log_probs array.

expect: modifies its input arrays
diagnosis: your function subtracts in the caller's new_log_probs array: it modifies its input arrays
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    new -= old
    return np.exp(np.sum(np.where(m != 0, new, 0.0), axis=1))
