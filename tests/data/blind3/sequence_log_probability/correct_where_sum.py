"""correct: selects the response positions with np.where before summing instead of multiplying by the mask."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=np.float64)
    if mask is None:
        return lp.sum(axis=-1)
    m = np.asarray(mask)
    if m.shape != lp.shape:
        raise ValueError(f"mask shape {m.shape} differs from token_log_probs shape {lp.shape}")
    return np.where(m != 0, lp, 0.0).sum(axis=-1)
