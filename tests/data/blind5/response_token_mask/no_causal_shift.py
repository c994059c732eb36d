"""Marks column pos for the token at position pos, forgetting the causal shift: the mask is aligned with input_ids[:, :-1] instead of the labels input_ids[:, 1:]."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths, dtype=int)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")

    B, T = ids.shape
    mask = np.zeros((B, T - 1))
    for b in range(B):
        done = False
        for pos in range(T - 1):
            tok = int(ids[b, pos])
            if pos < lengths[b] or tok == pad_token_id or done:
                continue
            if tok == eos_token_id:
                done = True
                if not include_eos:
                    continue
            mask[b, pos] = 1.0
    return mask
