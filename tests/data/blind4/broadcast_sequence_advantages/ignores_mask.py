"""Fills every position of a row with its advantage, including prompt and padding positions."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    return np.repeat(adv[:, None], m.shape[1], axis=1)
