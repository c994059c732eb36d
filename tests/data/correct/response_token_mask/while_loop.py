"""A while loop over each row's label columns that stops at the first EOS."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.array(input_ids)
    lengths = np.array(prompt_lengths)
    if len(ids.shape) != 2:
        raise ValueError("input_ids must be [B, T]")
    batch, width = ids.shape
    if lengths.shape != (batch,):
        raise ValueError("prompt_lengths must be [B]")
    mask = np.zeros((batch, width - 1))
    for b in range(batch):
        start = int(lengths[b])
        if start < 1 or start > width:
            raise ValueError("prompt lengths must lie in [1, T]")
        column = start - 1
        while column < width - 1:
            token = ids[b, column + 1]
            if token == eos_token_id:
                mask[b, column] = 1.0 if include_eos else 0.0
                break
            mask[b, column] = 0.0 if token == pad_token_id else 1.0
            column += 1
    return mask
