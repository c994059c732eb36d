"""Vectorised: the first EOS at or after the prompt found with a cumulative count, padding excluded with np.where."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2 or lengths.shape != (ids.shape[0],):
        raise ValueError("input_ids must be [B, T] and prompt_lengths [B]")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("prompt lengths must lie in [1, T]")
    positions = np.arange(ids.shape[1])[None, :]
    generated = positions >= lengths[:, None]
    eos = generated & (ids == eos_token_id)
    eos_seen_before = (np.cumsum(eos, axis=1) - eos) > 0
    first_eos = eos & ~eos_seen_before
    body = generated & ~eos_seen_before & ~eos & (ids != pad_token_id)
    counted = body | (first_eos if include_eos else np.zeros_like(first_eos))
    return counted[:, 1:].astype(float)
