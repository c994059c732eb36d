"""Only rejects an empty group, so G = 1 divides by zero instead of raising ValueError."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (r.sum() - r) / (r.size - 1)
