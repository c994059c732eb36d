"""Requires gamma < 1 (as for infinite horizons), so the undiscounted case raises ValueError.

expect: gamma = 1 is allowed
diagnosis: your function rejects gamma = 1: gamma = 1 is allowed (undiscounted returns)
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma < 1:
        raise ValueError("gamma must lie in [0, 1)")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * running
        out[t] = running
    return out
