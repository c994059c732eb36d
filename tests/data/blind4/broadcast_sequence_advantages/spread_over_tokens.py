"""Divides each sequence's advantage among its response tokens, so the row's tokens sum to the advantage."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    counts = np.maximum(m.sum(axis=1, keepdims=True), 1.0)
    return m * adv[:, None] / counts
