"""Multiplies mask * advantages directly, which broadcasts the advantages along the columns.

expect: broadcast along the wrong axis
diagnosis: your advantages are broadcast along the wrong axis: row b must carry sequence_advantages[b] (use
    sequence_advantages[:, None])
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return m * a
