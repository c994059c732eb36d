"""Computes the baselines in place in the rewards buffer, overwriting the caller's float array."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("at least two rewards are required")
    total = r.sum()
    r *= -1.0
    r += total
    r /= r.size - 1
    return r
