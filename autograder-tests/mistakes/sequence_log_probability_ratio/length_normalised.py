"""Divides the summed log-ratio by the response length (a per-token mean).

expect: length-normalised sequence ratio
diagnosis: your log-ratios are per-token means: a length-normalised sequence ratio is not the exact one, which is the
    masked sum
"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    return np.sum(np.where(m != 0, new - old, 0.0), axis=1) / np.sum(m, axis=1)
