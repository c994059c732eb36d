"""Stores the running sum before adding r_t, so G_t only counts the rewards after step t.

expect: include the reward of step t itself
diagnosis: your returns leave out the reward of step t: G_t must include the reward of step t itself (G_t = r_t +
    gamma * G_{t+1})
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        out[t] = running
        running = r[t] + gamma * running
    return out
