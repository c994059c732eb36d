"""Masked log-probs first (np.where), then the difference of two sums, each an einsum with the 0/1 mask."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new, old, m = (np.asarray(x, dtype=float) for x in (new_log_probs, old_log_probs, mask))
    if not (new.ndim == 2 and new.shape == old.shape == m.shape):
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    keep = (m != 0).astype(float)
    return np.einsum("bl,bl->b", np.where(keep > 0, new, 0.0) - np.where(keep > 0, old, 0.0), keep)
