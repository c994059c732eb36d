"""correct: finds each row's first EOS after the prompt with argmax and builds the mask with vectorised comparisons."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    if ids.ndim != 2:
        raise ValueError(f"input_ids must be 2-D, got shape {ids.shape}")
    batch, width = ids.shape
    starts = np.asarray(prompt_lengths)
    if starts.shape != (batch,):
        raise ValueError(f"prompt_lengths must have shape ({batch},), got {starts.shape}")
    if np.any((starts < 1) | (starts > width)):
        raise ValueError("every prompt length must lie in [1, T]")
    pos = np.arange(width)[None, :]
    after_prompt = pos >= starts[:, None]
    eos_hits = after_prompt & (ids == eos_token_id)
    first_eos = np.where(eos_hits.any(axis=1), eos_hits.argmax(axis=1), width)[:, None]
    before_end = pos <= first_eos if include_eos else pos < first_eos
    is_end = pos == first_eos
    keep = after_prompt & before_end & ((ids != pad_token_id) | is_end)
    return keep[:, 1:].astype(np.float64)
