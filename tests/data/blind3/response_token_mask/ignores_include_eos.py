"""Always counts the generated EOS, ignoring include_eos=False."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    lengths = np.asarray(prompt_lengths)
    if ids.ndim != 2:
        raise ValueError("input_ids must be [B, T]")
    B, T = ids.shape
    if lengths.shape != (B,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if np.any(lengths < 1) or np.any(lengths > T):
        raise ValueError("prompt lengths must lie in [1, T]")
    out = np.zeros((B, T - 1))
    for b in range(B):
        for pos in range(max(1, int(lengths[b])), T):
            token = ids[b, pos]
            if token == eos_token_id:
                out[b, pos - 1] = 1.0
                break
            if token != pad_token_id:
                out[b, pos - 1] = 1.0
    return out
