"""Correct mask but no input validation, and it needs arrays (reads .shape of its inputs).

expect: must raise ValueError
diagnosis: your function checks nothing and needs arrays: misshaped inputs and prompt lengths outside [1, T] must
    raise ValueError
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    batch, length = input_ids.shape[0], input_ids.shape[-1]
    mask = np.zeros((batch, length - 1))
    for b in range(batch):
        row = input_ids[b].reshape(-1)
        for pos in range(int(np.ravel(prompt_lengths)[b]), length):
            if row[pos] == eos_token_id:
                mask[b, pos - 1] = float(include_eos)
                break
            if row[pos] != pad_token_id:
                mask[b, pos - 1] = 1.0
    return mask
