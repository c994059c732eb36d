"""Splits each sequence's advantage evenly over its response tokens instead of giving every token the whole advantage."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    lengths = np.maximum(m.sum(axis=1, keepdims=True), 1.0)
    return a[:, None] * m / lengths
