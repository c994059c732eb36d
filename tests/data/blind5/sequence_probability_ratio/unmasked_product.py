"""Multiplies the token ratios of every position without the mask, so prompt and padding ratios enter the product."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    if new.shape != old.shape or np.shape(mask) != new.shape:
        raise ValueError("inputs must be aligned")
    return np.prod(np.exp(new - old), axis=-1)
