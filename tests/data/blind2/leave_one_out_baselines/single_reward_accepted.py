"""only checks the input is a vector, so a group of one is not rejected and divides by zero instead of raising ValueError"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector")
    return (r.sum() - r) / (r.size - 1)
