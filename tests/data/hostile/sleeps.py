"""Sleeping instead of computing: the wall-clock time limit applies, not CPU time.

target: double
bound: 25
expect: time limit
"""

import time

import numpy as np


def double(x):
    time.sleep(3600)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
