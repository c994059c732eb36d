"""The product of the token ratios over response tokens, masked positions contributing the factor 1."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    log_ratio = np.subtract(new, old, out=np.zeros(new.shape), where=m != 0)
    return np.prod(np.exp(log_ratio), axis=1)
