"""An endless loop in one function costs that function only, within its time limit.

target: double
bound: 25
expect: time limit
"""

import numpy as np


def double(x):
    while True:
        pass


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
