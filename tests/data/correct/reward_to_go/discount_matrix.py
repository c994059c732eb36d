"""Vectorised: G = W @ r with W[t, k] = gamma^(k - t) above the diagonal (exponents never negative)."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if gamma < 0 or gamma > 1:
        raise ValueError("gamma must lie in [0, 1]")
    steps = np.arange(len(r))
    lag = steps[None, :] - steps[:, None]
    weights = np.where(lag >= 0, np.power(float(gamma), np.maximum(lag, 0)), 0.0)
    return weights @ r
