"""Averages the token ratios over the response instead of multiplying them; a row without response tokens gets 0.

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
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    response = m != 0
    with np.errstate(invalid="ignore", over="ignore"):
        token_ratios = np.exp(np.where(response, new - old, -np.inf))  # masked positions add 0
    counts = response.sum(axis=1)
    return token_ratios.sum(axis=1) / np.where(counts > 0, counts, 1)
