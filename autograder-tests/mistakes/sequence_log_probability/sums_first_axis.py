"""Sums over the first (batch) axis instead of the last (token) axis.

expect: sums over the first (batch) axis
diagnosis: your result sums over the first (batch) axis, adding up one position of every sequence: each sequence's
    log-probability is the sum over its own tokens, the last axis
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.sum(axis=0)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.where(m != 0, lp, 0.0).sum(axis=0)
