"""Never checks the mask's shape, so a mask that only broadcasts against the log-probs is accepted instead of raising ValueError."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return np.sum(lp, axis=-1)
    return np.sum(lp * np.asarray(mask, dtype=float), axis=-1)
