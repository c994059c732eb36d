"""Uses argmax to find the EOS without checking it exists: a row without EOS gets an empty response.

expect: a row without EOS
diagnosis: your mask empties a row without EOS: a row without EOS (a response cut at the length limit) must run to the
    end
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
    after_prompt = pos >= lengths[:, None]
    first_eos = np.argmax((ids == eos_token_id) & after_prompt, axis=1)[:, None]
    keep = after_prompt & (pos < first_eos) & (ids != pad_token_id)
    if include_eos:
        keep |= after_prompt & (pos == first_eos)
    return keep[:, 1:].astype(float)
