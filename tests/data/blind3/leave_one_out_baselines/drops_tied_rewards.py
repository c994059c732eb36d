"""Excludes the own reward by value, so every other response with the same reward is dropped too."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("need at least two rewards")
    return np.array([np.mean(r[r != value]) for value in r])
