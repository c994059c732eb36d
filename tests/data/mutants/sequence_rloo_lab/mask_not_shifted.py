"""response_token_mask aligned with input_ids instead of the labels input_ids[:, 1:].

module: response_tokens
expect: not aligned with the labels
"""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("bad shapes")
    batch, length = ids.shape
    mask = np.zeros((batch, length - 1))
    for b in range(batch):
        # Column pos describes token pos here: the shift to the labels is missing.
        for pos in range(int(lengths[b]), length - 1):
            if ids[b, pos] == eos_token_id:
                mask[b, pos] = 1.0 if include_eos else 0.0
                break
            if ids[b, pos] != pad_token_id:
                mask[b, pos] = 1.0
    return mask
