"""Returns the log of the average token ratio over the response instead of the sum of token log-ratios."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.shape != old.shape or m.shape != new.shape:
        raise ValueError("inputs must be aligned")
    token_ratio = np.exp(np.where(m > 0, new - old, 0.0))
    mean_ratio = (token_ratio * m).sum(axis=-1) / np.maximum(m.sum(axis=-1), 1.0)
    return np.log(mean_ratio)
