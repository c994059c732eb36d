"""correct: population std from explicit sums of squared centred rewards; zeros when that spread is zero or below eps"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.array(rewards, dtype=np.float64)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    if not eps >= 0:
        raise ValueError("eps must be non-negative")
    centred = r - np.sum(r) / len(r)
    spread = np.sqrt(np.sum(centred * centred) / len(r))
    if spread == 0 or spread < eps:
        return np.zeros(len(r))
    return centred / spread
