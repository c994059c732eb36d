"""Uses the mean of the whole group (own reward included) as every response's baseline.

expect: same-group mean
diagnosis: your baselines are the same-group mean, which contains the response's own reward: leave R_i out and average
    only the other rewards
"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    return np.full_like(r, r.mean())
