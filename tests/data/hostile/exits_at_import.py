"""Ends the process while being imported: every function of the submission scores 0.

target: all
bound: 25
expect: import
"""

import os

os._exit(0)


def double(x):
    return 2.0 * x


def add(a, b):
    return a + b


def scale(x, factor):
    return x * factor
