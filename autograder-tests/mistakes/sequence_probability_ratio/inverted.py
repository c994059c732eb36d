"""Exponentiates the summed old - new log-probabilities: the ratio pi_old / pi_new.

expect: the ratio is inverted
diagnosis: your sequence ratios are exp(old - new): the ratio is inverted, pi_old / pi_new; the sequence ratio is the
    new policy's probability of the response over the old one's
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    with np.errstate(invalid="ignore"):
        return np.exp(np.where(m != 0, old - new, 0.0).sum(axis=1))
