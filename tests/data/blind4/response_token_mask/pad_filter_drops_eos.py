"""Removes every padding id after the EOS logic, so when pad_token_id == eos_token_id the generated EOS is dropped too."""
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
    after_prompt = pos >= lengths[:, None]
    is_eos = (ids == eos_token_id) & after_prompt
    has_eos = is_eos.any(axis=1)
    first_eos = np.where(has_eos, is_eos.argmax(axis=1), T)[:, None]
    keep = after_prompt & ((pos < first_eos) | (include_eos & (pos == first_eos)))
    keep &= ids != pad_token_id
    return keep[:, 1:].astype(float)
