"""Returns the RLOO advantages r_i - b_i instead of the baselines b_i themselves."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("at least two rewards are required")
    baselines = (np.sum(r) - r) / (len(r) - 1)
    return r - baselines
