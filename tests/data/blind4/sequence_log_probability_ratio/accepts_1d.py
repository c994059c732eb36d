"""Only checks that the shapes agree, so 1-D inputs are accepted (returning a scalar) instead of raising."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if old.shape != new.shape or m.shape != new.shape:
        raise ValueError("inputs must share one shape")
    keep = m != 0
    return np.where(keep, new, 0.0).sum(axis=-1) - np.where(keep, old, 0.0).sum(axis=-1)
