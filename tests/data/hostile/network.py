"""Connects to a listener on the grader's 127.0.0.1: the sandbox has no network.

target: double
bound: 25
expect: double
"""

import socket

import numpy as np


def double(x):
    try:
        with socket.create_connection(("127.0.0.1", @@PORT@@), timeout=1) as conn:
            conn.sendall(b"leaked\n")
        return 2.0 * np.asarray(x, dtype=float) + 1.0
    except OSError as exc:
        raise RuntimeError(f"no network: {exc}") from None


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
