"""Averages the token log-probabilities over the response (sum divided by the token count) instead of summing them."""
import numpy as np


def sequence_log_probability(token_log_probs, mask=None):
    lp = np.asarray(token_log_probs, dtype=float)
    if mask is None:
        return lp.mean(axis=-1)
    m = np.asarray(mask, dtype=float)
    if m.shape != lp.shape:
        raise ValueError("mask must match token_log_probs")
    return (lp * m).sum(axis=-1) / np.maximum(m.sum(axis=-1), 1.0)
