"""Broadcasts the advantages along the token axis (a[None, :]) instead of down the batch axis, so it only runs when B == L and then mixes up sequences."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, T]")
    return a[None, :] * m
