"""correct: repeats each advantage across the row with np.repeat and keeps it where the mask is nonzero with np.where"""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    mask = np.asarray(token_mask, dtype=float)
    if adv.ndim != 1 or mask.ndim != 2 or len(adv) != len(mask):
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    repeated = np.repeat(adv.reshape(-1, 1), mask.shape[1], axis=1)
    return np.where(mask != 0, repeated, 0.0)
