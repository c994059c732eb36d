"""Selects the response tokens with a boolean index, which flattens the batch into one total.

expect: flattens the batch
diagnosis: your masked sum indexes the log-probabilities with the boolean mask, which flattens the batch into one
    total: the result must keep one sum per sequence (the shape of the input without its token axis)
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.sum(axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return lp[m != 0].sum()
