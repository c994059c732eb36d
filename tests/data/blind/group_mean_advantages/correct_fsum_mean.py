"""correct: subtracts the exact mean computed with math.fsum over Python floats instead of np.mean"""
import math

import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 1:
        raise ValueError("rewards must be a non-empty vector")
    centre = math.fsum(r.tolist()) / len(r)
    return np.array([x - centre for x in r.tolist()], dtype=float)
