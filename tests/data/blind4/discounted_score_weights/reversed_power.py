"""Counts the discount power from the end of the episode: gamma**(T - 1 - t) * G_t."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    g = np.zeros_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        g[t] = running
    return gamma ** np.arange(len(r))[::-1] * g
