"""correct: the outer product of the advantages with ones, then zeroed where the mask is 0 with np.where."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    full = np.outer(adv, np.ones(m.shape[1]))
    return np.where(m != 0, full, 0.0)
