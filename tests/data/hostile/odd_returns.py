"""Returns objects that are not plain data, or that pretend to equal anything.

target: all
bound: 25
expect: return
"""

import numpy as np


class EqualsEverything:
    def __eq__(self, other):
        return True

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("gotcha")

    def __float__(self):
        return 0.0


class LyingFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


def double(x):
    return EqualsEverything()


def add(a, b):
    return LyingFloat(0.0)


def scale(x, factor):
    return np.array([EqualsEverything()] * len(x), dtype=object)
