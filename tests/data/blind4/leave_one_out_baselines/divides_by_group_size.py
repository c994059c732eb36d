"""Divides the sum of the others by G instead of G - 1."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("need a vector of at least two rewards")
    return (r.sum() - r) / r.size
