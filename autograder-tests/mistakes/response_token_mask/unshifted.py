"""Builds the mask over input_ids and drops the last column instead of the first (no shift).

expect: the mask is not shifted
diagnosis: your mask describes input_ids[:, :-1]: the mask is not shifted, column k must describe the label
    input_ids[:, k+1]
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    full = np.zeros(ids.shape)
    for b in range(ids.shape[0]):
        for pos in range(int(lengths[b]), ids.shape[1]):
            if ids[b, pos] == eos_token_id:
                full[b, pos] = float(include_eos)
                break
            if ids[b, pos] != pad_token_id:
                full[b, pos] = 1.0
    return full[:, :-1]
