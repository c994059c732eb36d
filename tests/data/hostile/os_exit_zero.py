"""Calls os._exit(0) inside the function: the worker ends, the function scores 0.

target: double
bound: 25
expect: ended the grading process
"""

import os

import numpy as np


def double(x):
    os._exit(0)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
