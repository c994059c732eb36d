"""Adds the token ratios of the response instead of multiplying them.

expect: product of the token ratios
diagnosis: your sequence ratio adds the token ratios: it is the product of the token ratios over the response tokens
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.sum(np.where(m != 0, np.exp(new - old), 0.0), axis=1)
