"""Masks only the prompt and the padding: whatever follows the EOS still counts.

expect: tokens after the first EOS are counted
diagnosis: your mask does not stop at the EOS: tokens after the first EOS are counted
"""

import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("shapes")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths")
    pos = np.arange(ids.shape[1])[None, :]
    keep = (pos >= lengths[:, None]) & (ids != pad_token_id)
    if not include_eos:
        keep &= ids != eos_token_id
    return keep[:, 1:].astype(float)
