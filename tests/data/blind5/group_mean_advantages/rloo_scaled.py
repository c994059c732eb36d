"""Multiplies the centred rewards by G/(G-1), returning the RLOO advantages instead of the same-group-mean advantages."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    G = len(r)
    return G / (G - 1) * (r - r.mean())
