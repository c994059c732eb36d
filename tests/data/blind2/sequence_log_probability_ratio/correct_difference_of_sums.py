"""correct: subtracts the masked sum of old log-probabilities from the masked sum of new ones"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.array(new_log_probs, dtype=np.float64)
    old = np.array(old_log_probs, dtype=np.float64)
    keep = np.array(mask, dtype=np.float64) != 0
    if new.ndim != 2 or new.shape != old.shape or new.shape != keep.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one 2-D shape")
    return np.where(keep, new, 0.0).sum(axis=1) - np.where(keep, old, 0.0).sum(axis=1)
