"""Discounts the current reward too: G_t = gamma * (r_t + G_{t+1}).

expect: discount exponent is off by one
diagnosis: your returns discount the current reward too: the discount exponent is off by one, r_t enters G_t
    undiscounted
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = gamma * (r[t] + running)
        out[t] = running
    return out
