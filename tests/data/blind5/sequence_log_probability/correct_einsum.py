"""correct: contracts the last axis with np.einsum, using a mask of ones when none is given."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        weights = np.ones_like(lp)
    else:
        weights = np.asarray(mask, dtype=float)
        if weights.shape != lp.shape:
            raise ValueError(f"mask shape {weights.shape} != token_log_probs shape {lp.shape}")
    picked = np.where(weights != 0, lp, 0.0)   # a -inf or nan at a masked position is ignored
    return np.einsum("...l,...l->...", picked, (weights != 0).astype(float))
