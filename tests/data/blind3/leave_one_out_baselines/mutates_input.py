"""Computes the baselines in place, overwriting the caller's float array of rewards."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("need at least two rewards")
    total = r.sum()
    np.subtract(total, r, out=r)
    r /= r.size - 1
    return r
