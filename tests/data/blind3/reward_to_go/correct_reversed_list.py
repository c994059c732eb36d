"""correct: accumulates over the reversed rewards into a Python list, then reverses it back."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=np.float64)
    if r.ndim != 1:
        raise ValueError(f"rewards must be one-dimensional, got shape {r.shape}")
    if not (0.0 <= gamma <= 1.0):
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    out = []
    g = 0.0
    for reward in r[::-1]:
        g = float(reward) + gamma * g
        out.append(g)
    return np.array(out[::-1], dtype=np.float64)
