"""Does not check that prompt_lengths has one entry per row, so a scalar prompt length is broadcast to every row instead of raising ValueError."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    if ids.ndim != 2:
        raise ValueError("input_ids must be [B, T]")
    B, T = ids.shape
    lengths = np.broadcast_to(np.asarray(prompt_lengths, dtype=int), (B,))
    mask = np.zeros((B, T - 1))
    for b in range(B):
        active = True
        for pos in range(1, T):
            tok = int(ids[b, pos])
            if pos < lengths[b] or tok == pad_token_id or not active:
                continue
            if tok == eos_token_id:
                active = False
                if not include_eos:
                    continue
            mask[b, pos - 1] = 1.0
    return mask
