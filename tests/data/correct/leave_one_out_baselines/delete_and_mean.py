"""For each response, the mean of the rewards with that one deleted."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size < 2:
        raise ValueError("at least two rewards are needed")
    return np.array([np.mean(np.delete(r, i)) for i in range(r.size)])
