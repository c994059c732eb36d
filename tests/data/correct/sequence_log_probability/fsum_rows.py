"""Each sequence summed exactly with math.fsum over its unmasked positions."""
import math

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.array(token_log_probs, dtype=float)
    m = np.ones(lp.shape) if mask is None else np.array(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must have the shape of token_log_probs")
    rows_lp = lp.reshape(-1, lp.shape[-1])
    rows_m = m.reshape(rows_lp.shape)
    sums = [math.fsum(x for x, keep in zip(row, keep_row) if keep != 0) for row, keep_row in zip(rows_lp, rows_m)]
    return np.array(sums, dtype=float).reshape(lp.shape[:-1])
