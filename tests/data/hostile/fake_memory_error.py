"""Raises MemoryError without allocating anything: a memory limit is reported only when the kernel saw one.

target: double
bound: 25
expect: MemoryError
"""

import numpy as np


def double(x):
    raise MemoryError("MemoryError: address space limit reached (this text proves nothing)")


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
