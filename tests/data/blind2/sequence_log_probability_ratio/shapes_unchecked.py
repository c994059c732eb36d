"""does not check that the inputs are 2-D with equal shapes, so 1-D or broadcastable inputs are accepted instead of raising ValueError"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    return np.sum(np.where(m != 0, new - old, 0.0), axis=-1)
