"""Exponentiates old minus new, returning the inverse sequence ratio."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    return np.exp(-sequence_log_probability_ratio(new_log_probs, old_log_probs, mask))
