"""Raises with rich markup and terminal escapes in its message: every command shows them as plain text.

target: double
bound: 25
expect: [/bold][red]x[link=https://e.x]y[/link]
"""

import numpy as np

MARKUP = "[/bold][red]x[link=https://e.x]y[/link] \x1b[2J\x1b]0;owned\x07"


def double(x):
    raise ValueError(MARKUP)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
