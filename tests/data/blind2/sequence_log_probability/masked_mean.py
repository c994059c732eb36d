"""divides the masked sum by the number of response tokens (a length-normalised mean instead of the sum)"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)

    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")

    kept = np.where(m != 0, lp, 0.0)
    count = np.sum(m != 0, axis=-1)
    return np.sum(kept, axis=-1) / np.maximum(count, 1)
