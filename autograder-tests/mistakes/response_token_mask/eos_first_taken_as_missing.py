"""Reads argmax == 0 as "no EOS", so an EOS right after the prompt is missed and the response runs on.

expect: an EOS as the very first generated token
diagnosis: your mask misses an EOS right after the prompt: an EOS as the very first generated token ends an empty
    response
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    batch, length = ids.shape
    mask = np.zeros((batch, length - 1))
    for b in range(batch):
        start = int(lengths[b])
        offset = int(np.argmax(ids[b, start:] == eos_token_id)) if start < length else 0
        end = start + offset if offset > 0 else length
        for pos in range(start, end):
            if ids[b, pos] != pad_token_id:
                mask[b, pos - 1] = 1.0
        if end < length and include_eos:
            mask[b, end - 1] = 1.0
    return mask
