"""Ignores SIGTERM and SIGINT and keeps looping: the worker is killed with SIGKILL.

target: double
bound: 25
expect: time limit
"""

import signal

import numpy as np


def double(x):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            pass
        except BaseException:
            pass


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
