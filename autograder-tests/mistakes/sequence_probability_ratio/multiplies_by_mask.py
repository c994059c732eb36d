"""Masks the token log-ratios by multiplication, so -inf - -inf at a masked position gives nan.

expect: leaks through multiplication by the mask
diagnosis: your log-ratios are masked by multiplication: a -inf or nan at a masked position leaks through
    multiplication by the mask (-inf - -inf is nan); use np.where
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.exp(np.sum((new - old) * m, axis=1))
