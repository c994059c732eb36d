"""Allocates the output like the input, so integer rewards give truncated integer returns.

expect: integer rewards included
diagnosis: your returns are stored in an array of the rewards' dtype: plain lists of integer rewards included must
    give fractional returns (compute in floats)
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
