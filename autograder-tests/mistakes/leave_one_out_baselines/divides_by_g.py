"""Divides the sum of the other rewards by G instead of by G - 1.

expect: not by G
diagnosis: your baselines divide the sum of the other rewards by G, not by G - 1 (the number of other responses)
"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    return (r.sum() - r) / len(r)
