"""Correct product but no shape checks (masks and rows broadcast), and it needs arrays.

expect: must raise ValueError
diagnosis: your function checks no shapes and needs arrays: inputs that do not share one [B, L] shape must raise
    ValueError
"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    return np.exp(np.where(mask != 0, new_log_probs - old_log_probs, 0.0).sum(axis=-1))
