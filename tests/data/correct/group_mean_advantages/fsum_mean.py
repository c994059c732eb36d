"""Subtracts the group mean computed exactly with math.fsum."""
import math

import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r - math.fsum(r) / r.size
