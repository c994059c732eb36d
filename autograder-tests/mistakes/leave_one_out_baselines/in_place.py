"""Computes the baselines in place in the caller's array (np.asarray does not copy a float array).

expect: modifies its input arrays
diagnosis: your function computes the baselines in the caller's array: it modifies its input arrays; build a new array
"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    total = r.sum()
    r -= total
    r /= -(len(r) - 1)
    return r
