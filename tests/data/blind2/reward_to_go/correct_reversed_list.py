"""correct: walks the reversed rewards appending Python floats, then reverses the list"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.array(rewards, dtype=np.float64)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not (0 <= gamma <= 1):
        raise ValueError("gamma must be in [0, 1]")
    out = []
    g = 0.0
    for reward in r[::-1]:
        g = float(reward) + gamma * g
        out.append(g)
    return np.array(out[::-1], dtype=np.float64)
