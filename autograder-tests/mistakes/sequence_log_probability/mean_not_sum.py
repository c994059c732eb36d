"""Averages the response log-probs (length-normalised) instead of summing them.

expect: not their mean
diagnosis: your result is the mean of the token log-probabilities: the log-probability of a sequence is their sum, not
    their mean
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.mean(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(np.where(m != 0, lp, 0.0), axis=-1) / np.sum(m, axis=-1)
