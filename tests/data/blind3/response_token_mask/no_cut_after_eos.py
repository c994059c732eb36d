"""Drops prompt and padding tokens but never stops at the first EOS, so non-padding tokens after it still count."""
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
    keep = (pos >= lengths[:, None]) & (ids != pad_token_id)
    if not include_eos:
        keep &= ids != eos_token_id
    return keep[:, 1:].astype(float)
