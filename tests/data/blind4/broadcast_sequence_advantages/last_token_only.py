"""Puts the advantage on the last response token of each row only (like a terminal reward), zero elsewhere."""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if m.ndim != 2 or adv.shape != (m.shape[0],):
        raise ValueError("advantages must be [B] and the mask [B, L]")
    out = np.zeros_like(m)
    has = (m != 0).any(axis=1)
    last = m.shape[1] - 1 - np.argmax((m != 0)[:, ::-1], axis=1)
    rows = np.nonzero(has)[0]
    out[rows, last[rows]] = adv[rows]
    return out
