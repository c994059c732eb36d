"""Computes the weights inline without any checks, so 2-D rewards or a gamma outside [0, 1] are not rejected."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    out = np.zeros_like(r)
    running = np.zeros_like(r[0]) if r.ndim > 1 else 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        out[t] = gamma ** t * running
    return out
