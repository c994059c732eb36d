"""correct: vectorised; finds the first EOS at or after the prompt with a cumulative sum over the row instead of a loop"""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    if ids.ndim != 2:
        raise ValueError("input_ids must be two-dimensional [B, T]")
    starts = np.asarray(prompt_lengths)
    if starts.shape != ids.shape[:1]:
        raise ValueError("prompt_lengths must have shape (B,)")
    if starts.size and (starts.min() < 1 or starts.max() > ids.shape[1]):
        raise ValueError("every prompt length must lie in [1, T]")
    positions = np.arange(ids.shape[1])[None, :]
    after_prompt = positions >= starts[:, None]
    eos_hits = (ids == eos_token_id) & after_prompt
    seen = np.cumsum(eos_hits, axis=1)
    before_end = seen == 0
    first_eos = eos_hits & (seen == 1)
    keep = after_prompt & ((before_end & (ids != pad_token_id)) | (first_eos & bool(include_eos)))
    return keep[:, 1:].astype(float)
