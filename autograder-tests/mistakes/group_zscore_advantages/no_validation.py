"""Correct arithmetic but no input validation (negative eps, empty or 2-D rewards), and it needs an array.

expect: must raise ValueError
diagnosis: your function checks nothing and needs an array: a negative eps and an empty or 2-D input must raise
    ValueError, and lists must work
"""

import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = rewards - rewards.mean()
    scale = np.sqrt(np.mean(centred**2))
    if scale < eps:
        return np.zeros_like(centred)
    return centred / scale
