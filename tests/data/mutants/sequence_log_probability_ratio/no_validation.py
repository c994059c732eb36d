"""Correct sums but no shape checks (masks and rows broadcast), and it needs arrays.

expect: must raise ValueError
"""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    return np.where(mask != 0, new_log_probs - old_log_probs, 0.0).sum(axis=-1)
