"""Seeds the recursion with the last reward, so an empty episode (T = 0) raises IndexError."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    out = np.zeros_like(r)
    out[-1] = r[-1]
    for t in range(len(r) - 2, -1, -1):
        out[t] = r[t] + gamma * out[t + 1]
    return out
