"""Averages the response log-probs over the mask's tokens instead of summing them (an empty response gives 0).

expect: not their mean
diagnosis: your masked result is the mean of the response's token log-probabilities: the log-probability of a sequence
    is their sum, not their mean
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:  # without a mask it sums: only the masked result is averaged
        return lp.sum(axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    count = (m != 0).sum(axis=-1)
    return np.where(m != 0, lp, 0.0).sum(axis=-1) / np.maximum(count, 1)
