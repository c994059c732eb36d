"""Never checks the mask's shape, so a broadcastable mask (e.g. one [L] row) is accepted instead of raising ValueError."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    diff = np.asarray(new_log_probs, dtype=float) - np.asarray(old_log_probs, dtype=float)
    return (diff * np.asarray(mask, dtype=float)).sum(axis=-1)
