"""Exponentiates the per-token mean log-ratio (GSPO-style length normalisation) instead of the sum.

expect: length-normalised sequence ratio
diagnosis: your sequence ratio is exp of the mean token log-ratio: a length-normalised sequence ratio (a geometric
    mean), not the product of the token ratios
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.exp(np.sum(np.where(m != 0, new - old, 0.0), axis=1) / np.sum(m, axis=1))
