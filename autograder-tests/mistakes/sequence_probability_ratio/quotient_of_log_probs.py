"""Divides the summed new log-probs by the summed old ones: a quotient of log-probabilities, not a ratio.

expect: not a quotient
diagnosis: your ratio divides summed log-probabilities: a ratio of probabilities is exp(sum of new - old), not a
    quotient of log-probabilities
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    active = m != 0
    return np.sum(np.where(active, new, 0.0), axis=1) / np.sum(np.where(active, old, 0.0), axis=1)
