"""A mask that skips padding before it looks for EOS, has no include_eos and checks shapes only.

With pad and eos apart it is right; it misses three course rules (pad_equals_eos, include_eos_false,
prompt_length_range) and nothing else.
"""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id):
    ids = np.asarray(input_ids)
    starts = np.asarray(prompt_lengths, dtype=int)
    if ids.ndim != 2 or starts.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")
    mask = np.zeros((ids.shape[0], ids.shape[1] - 1))
    for row in range(ids.shape[0]):
        for position in range(max(int(starts[row]), 1), ids.shape[1]):
            if ids[row, position] == pad_token_id:
                continue
            mask[row, position - 1] = 1.0
            if ids[row, position] == eos_token_id:
                break
    return mask
