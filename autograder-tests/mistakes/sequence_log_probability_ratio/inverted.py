"""Subtracts the new log-probs from the old ones.

expect: the log-ratio is inverted
diagnosis: your log-ratios are old - new: the log-ratio is inverted, it is new_log_probs minus old_log_probs
"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.sum(np.where(m != 0, old - new, 0.0), axis=1)
