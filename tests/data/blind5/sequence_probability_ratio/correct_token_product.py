"""correct: multiplies the token ratios along each row with np.prod, masked positions contributing exp(0) = 1, instead of exponentiating the summed log-ratio."""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must have the same shape")
    token_ratios = np.exp(np.where(m > 0, (new - old) * m, 0.0))
    return np.prod(token_ratios, axis=-1)
