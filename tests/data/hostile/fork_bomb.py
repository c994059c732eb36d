"""Forks until it cannot: the process limit stops it, the zygote kills what remains.

target: double
bound: 40
expect: double
"""

import os
import time

import numpy as np


def double(x):
    children = 0
    try:
        while True:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
            children += 1
    except OSError:
        pass
    return np.full(np.shape(x), -1.0 - children)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
