"""divides each row's log-ratio by its number of response tokens (a mean per token instead of the sum)"""

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("inputs must share one 2-D shape")
    on = m != 0

    diff = np.subtract(new, old, out=np.zeros_like(new), where=on)
    return diff.sum(axis=1) / np.maximum(on.sum(axis=1), 1)
