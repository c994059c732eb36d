"""Averages the token ratios over the response instead of multiplying them.

expect: the average of the token ratios is not the sequence ratio
diagnosis: your sequence ratio averages the token ratios: the average of the token ratios is not the sequence ratio,
    which is their product
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    ratios = np.exp(np.where(m != 0, new - old, 0.0))
    return np.sum(np.where(m != 0, ratios, 0.0), axis=1) / np.sum(m, axis=1)
