"""Multiplies the token log-ratios by the mask, so a masked -inf or nan turns the whole row into nan."""
import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("inputs must share one 2-D shape")
    keep = m != 0
    with np.errstate(invalid="ignore"):
        return ((new - old) * m).sum(axis=1)
