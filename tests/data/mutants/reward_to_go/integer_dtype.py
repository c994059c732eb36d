"""Allocates the output like the input, so integer rewards give truncated integer returns.

expect: integer rewards included
"""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * running
        out[t] = running
    return out
