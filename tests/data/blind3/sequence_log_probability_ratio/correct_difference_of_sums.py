"""correct: sums the new and the old response log-probabilities separately and subtracts the two sums."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=np.float64)
    old = np.asarray(old_log_probs, dtype=np.float64)
    m = np.asarray(mask)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError(f"expected three [B, L] arrays of one shape, got {new.shape}, {old.shape}, {m.shape}")
    keep = m != 0
    return np.where(keep, new, 0.0).sum(axis=1) - np.where(keep, old, 0.0).sum(axis=1)
