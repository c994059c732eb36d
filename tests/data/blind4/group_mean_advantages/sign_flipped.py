"""Returns mean(R) - R_i: the advantages with their sign flipped."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    return r.mean() - r
