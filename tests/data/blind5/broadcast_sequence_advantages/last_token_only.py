"""Puts the advantage only on the last response token of each sequence instead of on every response token."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, T]")
    out = np.zeros_like(m)
    for b in range(m.shape[0]):
        idx = np.flatnonzero(m[b])
        if idx.size:
            out[b, idx[-1]] = a[b]
    return out
