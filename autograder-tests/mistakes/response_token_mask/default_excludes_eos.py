"""Leaves the EOS out by default (include_eos defaults to False): the stop decision is not an action.

expect: EOS is excluded from the response
diagnosis: your mask leaves the EOS out by default: EOS is excluded from the response, but with include_eos=True (the
    default) the generated EOS counts
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=False):
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
            if ids[b, pos] != pad_token_id:
                mask[b, pos - 1] = 1.0
    return mask
