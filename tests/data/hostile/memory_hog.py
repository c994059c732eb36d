"""Allocates memory without end: the address-space limit turns it into MemoryError.

target: double
bound: 25
expect: MemoryError
"""

import numpy as np

HOARD = []


def double(x):
    while True:
        HOARD.append(np.ones(16 * 2**20 // 8))  # 16 MiB at a time, touched


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
