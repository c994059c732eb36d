"""correct: averages np.delete(rewards, i) for each response in a loop"""

import numpy as np


def leave_one_out_baselines(rewards):
    r = np.array(rewards, dtype=np.float64)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("rewards must be a vector of at least two rewards")
    return np.array([np.mean(np.delete(r, i)) for i in range(len(r))])
