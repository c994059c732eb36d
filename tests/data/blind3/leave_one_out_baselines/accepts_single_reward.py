"""Checks only for an empty group, so a single reward divides by G - 1 = 0 instead of raising."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (r.sum() - r) / (r.size - 1)
