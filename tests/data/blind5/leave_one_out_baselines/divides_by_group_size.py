"""Divides the sum of the other rewards by G instead of G - 1."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("at least two rewards are required")
    G = len(r)
    return (r.sum() - r) / G
