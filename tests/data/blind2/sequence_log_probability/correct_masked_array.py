"""correct: sums a numpy.ma masked array over the last axis and fills fully masked rows with 0"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.array(token_log_probs, dtype=np.float64)
    if mask is None:
        return lp.sum(axis=-1)
    keep = np.array(mask, dtype=np.float64)
    if keep.shape != lp.shape:
        raise ValueError("mask and token_log_probs must have the same shape")
    hidden = np.ma.array(lp, mask=(keep == 0))
    total = hidden.sum(axis=-1)
    return np.asarray(np.ma.filled(total, 0.0), dtype=np.float64)
