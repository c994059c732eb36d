"""Writes a reply whose exception type, message and traceback lines are huge and carry terminal escapes.

target: double
bound: 25
expect: raised
"""

import json
import os
import struct
import sys

import numpy as np


def double(x):
    data = json.dumps({"ok": False, "kind": "raised", "error_type": "E" * 50_000 + "\x1b]0;owned\x07",
                       "builtin_bases": ["ValueError"] * 1000 + ["[/bold]"], "message": "\x1b[2J" + "m" * 500_000,
                       "where": ["toy.py, line 1, in " + "w" * 2000] * 100}).encode()
    frame = sys._getframe(1)
    while "response_fd" not in frame.f_locals:  # the worker's serve() loop, up the stack
        frame = frame.f_back
    os.write(frame.f_locals["response_fd"], struct.pack(">Q", len(data)) + data)
    os._exit(0)  # before the worker sends its real reply


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
