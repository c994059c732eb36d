"""Row by row and token by token."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.array(sequence_advantages, dtype=float)
    m = np.array(token_mask, dtype=float)
    if len(a.shape) != 1 or len(m.shape) != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    out = np.zeros(m.shape)
    for b in range(m.shape[0]):
        for k in range(m.shape[1]):
            if m[b, k] != 0:
                out[b, k] = a[b]
    return out
