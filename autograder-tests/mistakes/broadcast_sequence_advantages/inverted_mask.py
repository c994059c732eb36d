"""Reads the mask the wrong way round: copies the advantage onto prompt and padding columns, zero on response tokens.

expect: mask is used inverted
diagnosis: your mask is used inverted: the advantage lands where the mask is 0 (prompt, padding) and the response
    tokens get 0
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return np.where(m == 0, a[:, None], 0.0)
