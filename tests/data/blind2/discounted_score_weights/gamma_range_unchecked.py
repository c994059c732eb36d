"""does not validate gamma, so a discount outside [0, 1] is used instead of raising ValueError"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    g = np.empty_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        g[t] = running
    return gamma ** np.arange(len(r), dtype=float) * g
