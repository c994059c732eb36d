"""correct: vectorised with a position grid, argmax for the first EOS after the prompt, and the label shift applied at the end"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.array(input_ids)
    if ids.ndim != 2:
        raise ValueError("input_ids must be two-dimensional")
    B, T = ids.shape
    plen = np.array(prompt_lengths).reshape(-1) if np.ndim(prompt_lengths) == 1 else None
    if plen is None or plen.shape != (B,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if ((plen < 1) | (plen > T)).any():
        raise ValueError("prompt lengths must be in [1, T]")
    pos = np.arange(T)[None, :]
    after_prompt = (pos >= plen[:, None]) & (pos >= 1)
    eos_here = (ids == eos_token_id) & after_prompt
    has_eos = eos_here.any(axis=1)
    first = np.where(has_eos, eos_here.argmax(axis=1), T)[:, None]
    keep = after_prompt & (pos < first) & (ids != pad_token_id)
    if include_eos:
        keep |= (pos == first)
    return keep[:, 1:].astype(np.float64)
