"""Accumulates the returns into the caller's rewards array.

expect: modifies the caller's rewards
diagnosis: your function accumulates the returns in the caller's array: it modifies the caller's rewards; write them
    into a new array
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)  # no copy for a float array
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    for t in range(len(r) - 2, -1, -1):
        r[t] += gamma * r[t + 1]
    return r
