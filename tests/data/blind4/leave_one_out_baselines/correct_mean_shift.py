"""correct: writes b_i as the group mean moved away from R_i by (mean - R_i) / (G - 1)."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("need a vector of at least two rewards")
    mean = r.mean()
    return mean + (mean - r) / (r.size - 1)
