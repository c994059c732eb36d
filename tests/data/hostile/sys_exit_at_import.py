"""Calls sys.exit(0) while being imported: an import failure, not a pass.

target: all
bound: 25
expect: exit
"""

import sys

sys.exit(0)


def double(x):
    return 2.0 * x


def add(a, b):
    return a + b


def scale(x, factor):
    return x * factor
