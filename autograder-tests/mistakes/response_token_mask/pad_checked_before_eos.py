"""Skips padding before testing for EOS, so with pad == eos the EOS is taken for padding.

expect: pad==eos: the EOS is treated as padding
diagnosis: your mask tests for padding before EOS, so with pad==eos: the EOS is treated as padding, though the first
    EOS after the prompt still ends the response and counts
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
            token = ids[b, pos]
            if token == pad_token_id:
                continue
            if token == eos_token_id:
                mask[b, pos - 1] = float(include_eos)
                break
            mask[b, pos - 1] = 1.0
    return mask
