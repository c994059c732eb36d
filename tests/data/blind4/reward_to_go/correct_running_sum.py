"""correct: a backward running sum written into a list, then reversed into an array."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    out = []
    running = 0.0
    for reward in r[::-1]:
        running = reward + gamma * running
        out.append(running)
    return np.array(out[::-1], dtype=float)
