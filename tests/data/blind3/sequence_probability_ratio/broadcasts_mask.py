"""Never validates the shapes, so a mask that only broadcasts (or 1-D inputs) is accepted instead of rejected."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    on = np.asarray(mask, dtype=float) != 0
    return np.exp(np.sum(np.where(on, new - old, 0.0), axis=-1))
