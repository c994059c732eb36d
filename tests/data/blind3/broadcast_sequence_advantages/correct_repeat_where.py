"""correct: repeats each advantage along the row with np.repeat and zeroes masked positions with np.where."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=np.float64)
    m = np.asarray(token_mask)
    if adv.ndim != 1:
        raise ValueError(f"sequence_advantages must be [B], got shape {adv.shape}")
    if m.ndim != 2 or m.shape[0] != adv.shape[0]:
        raise ValueError(f"token_mask must be [B, L] with B = {adv.shape[0]}, got shape {m.shape}")
    full = np.repeat(adv[:, None], m.shape[1], axis=1)
    return np.where(m != 0, full, 0.0)
