"""Without a mask, sums the whole batch into one number instead of one sum per sequence.

expect: without a mask every position counts, and the result is still one sum per sequence
diagnosis: your function sums the whole batch when no mask is given: without a mask every position counts, and the
    result is still one sum per sequence
"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return np.sum(np.where(m != 0, lp, 0.0), axis=-1)
