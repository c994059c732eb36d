"""Ends the response at the first padding token as well as at the first EOS.

expect: padding before the EOS ends the response
diagnosis: your mask ends at the first padding token: padding before the EOS ends the response, but a pad inside the
    response is only skipped
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    mask = np.zeros((ids.shape[0], ids.shape[1] - 1))
    for b in range(ids.shape[0]):
        for pos in range(int(lengths[b]), ids.shape[1]):
            if ids[b, pos] == eos_token_id:
                mask[b, pos - 1] = float(include_eos)
                break
            if ids[b, pos] == pad_token_id:
                break
            mask[b, pos - 1] = 1.0
    return mask
