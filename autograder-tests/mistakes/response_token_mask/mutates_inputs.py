"""Turns prompt_lengths into label columns in place (lengths -= 1), changing the caller's array.

expect: modifies its input arrays
diagnosis: your function changes the caller's prompt_lengths in place: it modifies its input arrays
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    lengths -= 1  # first response label column
    labels = ids[:, 1:]
    mask = np.zeros(labels.shape)
    for b in range(labels.shape[0]):
        for k in range(int(lengths[b]), labels.shape[1]):
            if labels[b, k] == eos_token_id:
                mask[b, k] = float(include_eos)
                break
            if labels[b, k] != pad_token_id:
                mask[b, k] = 1.0
    return mask
