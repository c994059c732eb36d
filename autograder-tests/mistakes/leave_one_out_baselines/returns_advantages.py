"""Returns the RLOO advantages R_i - b_i instead of the baselines b_i.

expect: not the RLOO advantages
diagnosis: your result is R_i - b_i: return the baselines b_i themselves, not the RLOO advantages
"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("need at least two rewards")
    return r - (r.sum() - r) / (len(r) - 1)
