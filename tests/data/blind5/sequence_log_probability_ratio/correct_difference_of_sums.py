"""correct: subtracts the two masked sequence log-probabilities from sequence_log_probability instead of summing masked token differences."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    if new.shape != old.shape:
        raise ValueError("new_log_probs and old_log_probs must have the same shape")
    # sequence_log_probability validates the mask shape
    return sequence_log_probability(new, mask) - sequence_log_probability(old, mask)
