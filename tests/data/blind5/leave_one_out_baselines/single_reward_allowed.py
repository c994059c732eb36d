"""Does not reject a group of one reward, dividing by G - 1 = 0 instead of raising ValueError."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.sum(r) - r) / (len(r) - 1)
