"""multiplies a[B] by the mask[B, L] without a new axis, so numpy pairs the advantages with the L columns (an error unless B == L, silently wrong then)"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)

    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")

    return a * m
