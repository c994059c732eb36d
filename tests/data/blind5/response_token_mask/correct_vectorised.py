"""correct: vectorised over the label positions input_ids[:, 1:] with a cumulative count of earlier EOS hits instead of a per-token loop."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2:
        raise ValueError("input_ids must have shape [B, T]")
    if lengths.shape != (ids.shape[0],):
        raise ValueError("prompt_lengths must have shape [B]")
    if np.any(lengths < 1) or np.any(lengths > ids.shape[1]):
        raise ValueError("every prompt length must lie in [1, T]")
    labels = ids[:, 1:]                                  # label k+1 is scored at column k
    pos = np.arange(1, ids.shape[1])[None, :]
    after_prompt = pos >= lengths[:, None]
    is_eos = after_prompt & (labels == eos_token_id)          # tested before padding: pad == eos still ends it
    seen_before = (np.cumsum(is_eos, axis=1) - is_eos) > 0   # an EOS strictly earlier ends the response
    keep = after_prompt & ~seen_before & (is_eos | (labels != pad_token_id))
    if not include_eos:
        keep &= ~is_eos
    return keep.astype(float)
