"""Repeats the advantage on every position, including prompt and padding columns, without applying the token mask."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, T]")
    return np.tile(a[:, None], (1, m.shape[1]))
