"""Accumulates forwards in time: G_t collects the rewards up to step t instead of from step t on.

expect: not the rewards before step t
diagnosis: your returns accumulate forwards in time: G_t collects the rewards from step t to the end, not the rewards
    before step t
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    out = np.zeros_like(r)
    running = 0.0
    for t in range(len(r)):
        running = r[t] + gamma * running
        out[t] = running
    return out
