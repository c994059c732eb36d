"""Scales the caller's mask array in place by the advantages and returns it.

expect: modifies its input arrays
diagnosis: your function scales the caller's mask in place and returns it: it modifies its input arrays; build a new
    array
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    m *= a[:, None]
    return m
