"""Returns 300,000 empty lists: under the reply's size limit, far over what a value may hold.

target: double
bound: 25
expect: more than 10,000 lists
"""

import numpy as np


def double(x):
    return [[] for _ in range(300_000)]


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
