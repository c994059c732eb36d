"""correct: subtracts the two masked sequence log-probabilities from sequence_log_probability instead of summing masked token differences."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or np.shape(mask) != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    return sequence_log_probability(new, mask) - sequence_log_probability(old, mask)
