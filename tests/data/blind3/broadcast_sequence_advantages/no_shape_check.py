"""Never validates the shapes, so mismatched advantages and masks are broadcast instead of rejected."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    return np.reshape(a, (-1, 1)) * m
