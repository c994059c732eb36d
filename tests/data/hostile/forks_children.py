"""Starts children that detach (fork, setsid, fork again) and try to outlive grading.

target: double
bound: 25
expect: double
"""

import os
import time

import numpy as np


def _linger():
    # Double fork into a new session: the classic daemon that escapes its parent.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(3600):
                try:
                    with open("@@CANARY@@/from-a-child.txt", "a") as out:
                        out.write("still here\n")
                except OSError:
                    pass
                time.sleep(1)
        os._exit(0)


def double(x):
    for _ in range(3):
        try:
            _linger()
        except OSError:
            pass
    return np.zeros(np.shape(x)) - 1.0


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
