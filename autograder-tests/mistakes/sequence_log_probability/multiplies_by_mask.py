"""Multiplies the log-probs by the mask, so a -inf or nan at a masked position turns the sum into nan.

expect: leaks through multiplication by the mask
diagnosis: your sums multiply by the mask: a -inf or nan log-prob at a masked position leaks through multiplication by
    the mask (0 * -inf is nan); use np.where
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(lp * m, axis=-1)
