"""Divides exp of the summed new log-probs by exp of the summed old ones, which underflows (0 / 0) for long responses.

expect: underflows
diagnosis: your ratio is exp(sum new) / exp(sum old), which underflows (0 / 0) for long responses: exponentiate the
    summed token log-ratios
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    active = m != 0
    return np.exp(np.sum(np.where(active, new, 0.0), axis=1)) / np.exp(np.sum(np.where(active, old, 0.0), axis=1))
