"""Treats position prompt_length itself as part of the prompt (pos <= prompt_length), dropping the first generated token."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths, dtype=int)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")

    B, T = ids.shape
    mask = np.zeros((B, T - 1))
    for b in range(B):
        active = True
        for pos in range(1, T):
            tok = int(ids[b, pos])
            if pos <= lengths[b] or tok == pad_token_id or not active:
                continue
            if tok == eos_token_id:
                active = False
                if not include_eos:
                    continue
            mask[b, pos - 1] = 1.0
    return mask
