"""starts the response at position prompt_length + 1 (pos > prompt_length), dropping the first response token"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")
    B, T = ids.shape
    if np.any(lengths < 1) or np.any(lengths > T):
        raise ValueError("prompt lengths must lie in [1, T]")

    mask = np.zeros((B, T - 1), dtype=float)
    for b in range(B):
        for pos in range(int(lengths[b]) + 1, T):
            token = ids[b, pos]
            if token == eos_token_id:
                if include_eos:
                    mask[b, pos - 1] = 1
                break
            if token == pad_token_id:
                continue
            mask[b, pos - 1] = 1
    return mask
