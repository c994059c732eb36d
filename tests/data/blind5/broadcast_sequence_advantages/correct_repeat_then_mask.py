"""correct: repeats each advantage across the token axis with np.repeat and then multiplies by the mask, instead of broadcasting a[:, None]."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    mask = np.asarray(token_mask, dtype=float)
    if adv.ndim != 1:
        raise ValueError("sequence_advantages must be [B]")
    if mask.ndim != 2 or mask.shape[0] != adv.shape[0]:
        raise ValueError("token_mask must be [B, L] with the same B")
    tiled = np.repeat(adv.reshape(-1, 1), mask.shape[1], axis=1)
    return tiled * mask
