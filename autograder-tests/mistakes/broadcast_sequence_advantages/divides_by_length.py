"""Spreads the advantage over the response: each token gets A_b / (number of response tokens).

expect: the advantage is divided by the response length
diagnosis: your advantages are spread over each response: the advantage is divided by the response length, but every
    response token carries the whole sequence advantage
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    if a.ndim != 1 or m.ndim != 2 or m.shape[0] != a.shape[0]:
        raise ValueError("advantages must be [B] and token_mask [B, L]")
    return a[:, None] * m / np.sum(m, axis=1, keepdims=True)
