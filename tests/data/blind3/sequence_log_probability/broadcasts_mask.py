"""Never compares the shapes, so a mask that only broadcasts against the log-probabilities is accepted."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.sum(axis=-1)
    m = np.asarray(mask, dtype=float)
    return np.where(m != 0, lp, 0.0).sum(axis=-1)
