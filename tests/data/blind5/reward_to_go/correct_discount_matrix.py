"""correct: builds an upper-triangular matrix of gamma**(k-t) and multiplies it with the rewards instead of a backward loop."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.array(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be a 1-D array")
    if gamma < 0.0 or gamma > 1.0:
        raise ValueError("gamma must be in [0, 1]")
    T = r.shape[0]
    t = np.arange(T)
    lag = t[None, :] - t[:, None]          # k - t
    weights = np.where(lag >= 0, float(gamma) ** np.maximum(lag, 0), 0.0)
    return weights @ r
