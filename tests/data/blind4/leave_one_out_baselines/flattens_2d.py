"""Flattens its input, so a 2-D batch of groups is treated as one big group instead of rejected."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.ravel(np.asarray(rewards, dtype=float))
    if r.size < 2:
        raise ValueError("need at least two rewards")
    return (r.sum() - r) / (r.size - 1)
