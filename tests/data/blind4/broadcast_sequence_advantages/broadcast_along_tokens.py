"""Multiplies the (B,) advantages into the mask without a new axis, so they broadcast along the token axis."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    if adv.shape[0] != m.shape[1]:
        raise ValueError("advantages and mask do not fit")
    return m * adv
