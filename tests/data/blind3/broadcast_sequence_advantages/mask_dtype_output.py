"""Allocates the result with zeros_like(token_mask), so an integer mask truncates fractional advantages."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    out = np.zeros_like(m)
    for b in range(a.shape[0]):
        out[b] = a[b] * m[b]
    return out
