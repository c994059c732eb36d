"""Excludes only PAD tokens after the prompt and never stops at EOS, so non-PAD tokens after the EOS stay in the mask."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths, dtype=int)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")

    T = ids.shape[1]
    positions = np.arange(1, T)
    labels = ids[:, 1:]
    mask = (positions[None, :] >= lengths[:, None]) & (labels != pad_token_id)
    if not include_eos:
        mask &= labels != eos_token_id
    return mask.astype(float)
