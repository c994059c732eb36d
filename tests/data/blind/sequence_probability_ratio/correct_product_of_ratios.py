"""correct: multiplies the token ratios with np.prod, masked positions set to the identity 1"""
import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one 2-D shape")
    ratios = np.ones(new.shape)
    response = m != 0
    ratios[response] = np.exp(new[response] - old[response])
    return np.prod(ratios, axis=1)
