"""Repeats each advantage over the whole row, prompt and padding columns included.

expect: the advantage is copied onto masked positions
diagnosis: your function ignores the mask: the advantage is copied onto masked positions too (prompt and padding
    columns must get 0)
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return np.repeat(a[:, None], m.shape[1], axis=1)
