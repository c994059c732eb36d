"""Uses the mean of the whole group, including the response's own reward."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("need a vector of at least two rewards")
    return np.full_like(r, r.mean())
