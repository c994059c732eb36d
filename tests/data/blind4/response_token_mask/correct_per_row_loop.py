"""correct: a plain Python loop over rows and positions, walking each response until its first EOS."""
import numpy as np


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    ids = np.asarray(input_ids)
    if ids.ndim != 2:
        raise ValueError("input_ids must be 2-D")
    B, T = ids.shape
    lengths = np.asarray(prompt_lengths)
    if lengths.shape != (B,):
        raise ValueError("prompt_lengths must have shape (B,)")
    if np.any(lengths < 1) or np.any(lengths > T):
        raise ValueError("prompt lengths must lie in [1, T]")
    mask = np.zeros((B, T - 1))
    # Python ints: indexing numpy scalars one by one would be slow on large batches.
    rows, starts = ids.tolist(), lengths.tolist()
    for b in range(B):
        row = rows[b]
        for pos in range(max(int(starts[b]), 1), T):
            token = row[pos]
            if token == eos_token_id:
                if include_eos:
                    mask[b, pos - 1] = 1.0
                break
            if token != pad_token_id:
                mask[b, pos - 1] = 1.0
    return mask
