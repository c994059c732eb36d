"""Ends the response at the last EOS of the row instead of the first one.

expect: tokens after the first EOS are counted
diagnosis: your mask ends each response at the last EOS of the row: tokens after the first EOS are counted
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
        eos_at = np.flatnonzero(ids[b, start:] == eos_token_id)
        end = start + eos_at.max() if eos_at.size else length
        for pos in range(start, min(end, length)):
            if ids[b, pos] != pad_token_id and ids[b, pos] != eos_token_id:
                mask[b, pos - 1] = 1.0
        if end < length and include_eos:
            mask[b, end - 1] = 1.0
    return mask
