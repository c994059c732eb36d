"""subtracts the wrong way round: (R_i - sum_j R_j) / (G - 1), the negated baseline"""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("rewards must be a vector of at least two rewards")
    return (r - np.sum(r)) / (r.size - 1)
