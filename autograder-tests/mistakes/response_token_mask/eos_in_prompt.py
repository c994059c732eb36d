"""Looks for the first EOS over the whole row, so an EOS inside the prompt ends the response.

expect: an EOS inside the prompt ends the response
diagnosis: your mask searches the whole row for the EOS: an EOS inside the prompt ends the response, but only the
    first EOS at or after the prompt boundary counts
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    batch, length = ids.shape
    pos = np.arange(length)[None, :]
    is_eos = ids == eos_token_id
    first_eos = np.where(is_eos.any(axis=1), is_eos.argmax(axis=1), length)[:, None]
    after_prompt = pos >= lengths[:, None]
    keep = after_prompt & (pos < first_eos) & (ids != pad_token_id)
    if include_eos:
        keep |= after_prompt & (pos == first_eos)
    return keep[:, 1:].astype(float)
