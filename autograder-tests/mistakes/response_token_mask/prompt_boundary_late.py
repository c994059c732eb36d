"""Compares the mask column index (not the label position) with the prompt length: one token late.

expect: the prompt boundary is off by one
diagnosis: your mask starts one token late: the prompt boundary is off by one (input_ids[b, prompt_lengths[b]] is the
    first response token, mask column prompt_lengths[b] - 1)
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    labels = ids[:, 1:]
    batch, columns = labels.shape
    mask = np.zeros((batch, columns))
    for b in range(batch):
        for k in range(int(lengths[b]), columns):
            if labels[b, k] == eos_token_id:
                mask[b, k] = float(include_eos)
                break
            if labels[b, k] != pad_token_id:
                mask[b, k] = 1.0
    return mask
