"""correct: forms the [B, L] array with einsum('b,bl->bl')"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    adv = np.array(sequence_advantages, dtype=np.float64)
    mask = np.array(token_mask, dtype=np.float64)
    if adv.ndim != 1 or mask.ndim != 2 or len(adv) != len(mask):
        raise ValueError("sequence_advantages must be [B] and token_mask [B, L]")
    return np.einsum("b,bl->bl", adv, mask)
