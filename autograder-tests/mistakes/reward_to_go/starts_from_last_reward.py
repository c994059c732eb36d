"""Seeds the recursion with rewards[-1], which fails for an empty episode.

expect: empty episode
diagnosis: your recursion starts from rewards[-1]: an empty episode (T = 0) must give an empty array
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    out = np.empty_like(r)
    out[-1] = r[-1]
    for t in range(len(r) - 2, -1, -1):
        out[t] = r[t] + gamma * out[t + 1]
    return out
