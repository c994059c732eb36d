"""checks only the numbers of dimensions, so advantages whose length differs from the mask's rows broadcast (e.g. one advantage for B rows) instead of raising ValueError"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)

    if a.ndim != 1 or m.ndim != 2:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return a[:, None] * m
