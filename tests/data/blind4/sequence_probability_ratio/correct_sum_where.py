"""correct: one np.sum of the token log-ratios with where=, so masked entries are never read, then exp."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("inputs must share one 2-D shape")
    keep = m != 0
    with np.errstate(invalid="ignore"):
        log_ratio = new - old  # masked entries may be nan; where= below never reads them
    return np.exp(np.sum(log_ratio, axis=1, where=keep))
