"""Prints 200 MB: the file size limit stops the flood, the grader keeps a few KB of it.

target: double
bound: 25
expect: double
"""

import sys

import numpy as np

LINE = "spam " * 200 + "\n"


def double(x):
    for _ in range(200 * 2**20 // len(LINE)):
        sys.stdout.write(LINE)
    return 2.0 * np.asarray(x, dtype=float)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
