"""np.outer of the advantages with the 0/1 indicator of the mask."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or len(a) != len(m):
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return np.outer(a, np.ones(m.shape[1])) * (m != 0)
