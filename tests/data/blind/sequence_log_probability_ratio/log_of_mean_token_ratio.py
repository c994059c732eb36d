"""returns the log of the mean token ratio over the response instead of the sum of token log-ratios"""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not (new.shape == old.shape == m.shape):
        raise ValueError("new_log_probs, old_log_probs and mask must share one 2-D shape")
    keep = m != 0
    with np.errstate(invalid="ignore"):
        token_log_ratios = np.where(keep, new - old, 0.0)
    ratios = np.where(keep, np.exp(token_log_ratios), 0.0)
    return np.log(ratios.sum(axis=1) / np.maximum(keep.sum(axis=1), 1))
