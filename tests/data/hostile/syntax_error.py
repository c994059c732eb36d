"""Does not parse: every function scores 0 and the message names the syntax error.

target: all
bound: 25
expect: SyntaxError
"""

import numpy as np


def double(x)
    return 2.0 * np.asarray(x)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
