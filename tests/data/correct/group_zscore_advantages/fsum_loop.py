"""Mean and variance with math.fsum, the square root with math.sqrt."""
import math

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.array(rewards, dtype=float)
    if not eps >= 0:
        raise ValueError("eps must be non-negative")
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    mean = math.fsum(r) / len(r)
    deviations = [x - mean for x in r]
    std = math.sqrt(math.fsum(d * d for d in deviations) / len(r))
    if std == 0.0 or std < eps:
        return np.zeros(len(r))
    return np.array([d / std for d in deviations])
