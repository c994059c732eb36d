"""Returns-to-go by recursion, then a running discount d_t = gamma^t multiplied in step by step."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.array(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if gamma < 0.0 or gamma > 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    g = np.zeros(len(r))
    for t in range(len(r) - 1, -1, -1):
        g[t] = r[t] + (gamma * g[t + 1] if t + 1 < len(r) else 0.0)
    discount = 1.0
    for t in range(len(r)):
        g[t] *= discount
        discount *= gamma
    return g
