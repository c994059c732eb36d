"""Calls sys.exit(0) inside the function, hoping a clean exit reads as success.

target: double
bound: 25
expect: SystemExit
"""

import sys

import numpy as np


def double(x):
    sys.exit(0)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
