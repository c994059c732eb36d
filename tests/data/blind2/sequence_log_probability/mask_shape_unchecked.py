"""does not compare the shapes, so a mask that merely broadcasts (e.g. shape (L,)) is accepted instead of raising ValueError"""

import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    m = np.asarray(mask, dtype=float)

    return np.sum(np.where(m != 0, lp, 0.0), axis=-1)
