"""correct: subtracts the masked sum of old log-probabilities from the masked sum of new ones (np.sum with where=)"""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    keep = np.asarray(mask, dtype=float)
    if not (new.ndim == old.ndim == keep.ndim == 2) or new.shape != old.shape or new.shape != keep.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one 2-D shape")
    keep = keep != 0
    return np.sum(new, axis=1, where=keep) - np.sum(old, axis=1, where=keep)
