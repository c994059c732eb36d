"""Accepts (B, 1) advantages by flattening them instead of requiring shape (B,)."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    adv = adv.reshape(-1)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    return np.where(m != 0, adv[:, None], 0.0)
