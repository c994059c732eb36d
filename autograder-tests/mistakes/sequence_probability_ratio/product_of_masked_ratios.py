"""Multiplies the token ratios times the mask, so every masked position is a factor 0.

expect: masked ratios are 0 instead of 1
diagnosis: your product multiplies the token ratios by the mask: masked ratios are 0 instead of 1, so every row with a
    masked position gets 0
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.prod(np.exp(np.where(m != 0, new - old, 0.0)) * m, axis=1)
