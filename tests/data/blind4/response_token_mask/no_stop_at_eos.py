"""Drops only padding and EOS tokens, never stopping at the first EOS, so tokens generated after it still count."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    if ids.ndim != 2:
        raise ValueError("input_ids must be 2-D")
    B, T = ids.shape
    lengths = np.asarray(prompt_lengths)
    if lengths.shape != (B,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if np.any(lengths < 1) or np.any(lengths > T):
        raise ValueError("prompt lengths must lie in [1, T]")
    pos = np.arange(T)[None, :]
    keep = pos >= lengths[:, None]
    is_eos = ids == eos_token_id
    keep &= (ids != pad_token_id) | is_eos
    if not include_eos:
        keep &= ~is_eos
    return keep[:, 1:].astype(float)
