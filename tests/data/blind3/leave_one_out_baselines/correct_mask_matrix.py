"""correct: averages the others through an off-diagonal matrix of 1 / (G - 1) instead of sum minus self."""
import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=np.float64)
    if r.ndim != 1 or r.shape[0] < 2:
        raise ValueError(f"need a vector of at least two rewards, got shape {r.shape}")
    g = r.shape[0]
    others = (np.ones((g, g)) - np.eye(g)) / (g - 1)
    return others @ r
