"""Divides each sequence's advantage by its number of response tokens, spreading it over the tokens instead of giving every token the full advantage."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, T]")
    n_tokens = np.maximum(m.sum(axis=1, keepdims=True), 1.0)
    return a[:, None] * m / n_tokens
