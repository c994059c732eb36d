"""tests for padding before EOS, so when pad_token_id == eos_token_id the EOS is dropped as padding and never ends the response"""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2:
        raise ValueError("input_ids must be two-dimensional [B, T]")
    rows, width = ids.shape
    if lengths.shape != (rows,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if np.any(lengths < 1) or np.any(lengths > width):
        raise ValueError("every prompt length must lie in [1, T]")
    mask = np.zeros((rows, max(width - 1, 0)), dtype=float)
    for b in range(rows):
        for pos in range(max(int(lengths[b]), 1), width):
            token = ids[b, pos]
            if token == pad_token_id:
                continue
            if token == eos_token_id:
                if include_eos:
                    mask[b, pos - 1] = 1.0
                break
            if token != pad_token_id:
                mask[b, pos - 1] = 1.0
    return mask
