"""Computes the weights with its own backward loop and never validates gamma, so gamma outside [0, 1] is accepted instead of raising ValueError."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    out = np.zeros(len(r))
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        out[t] = gamma ** t * running
    return out
