"""Correct recursion but no validation: any gamma and 2-D rewards are accepted.

expect: must raise ValueError
diagnosis: your function accepts any gamma and 2-D rewards: gamma outside [0, 1] and 2-D rewards must raise ValueError
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * running
        out[t] = running
    return out
