"""Imports the reference solutions: as a package, and by the course's absolute path.

Inside the sandbox neither the repository nor the course directory exists.

target: double
bound: 25
expect: double
"""

import importlib.util

import numpy as np


def _reference():
    try:
        from solutions.toy import double as found  # noqa: F401
        return found
    except Exception:
        pass
    for path in ("@@COURSE_ROOT@@/solutions/toy.py", "@@REPO_ROOT@@/solutions/toy.py"):
        try:
            spec = importlib.util.spec_from_file_location("stolen", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.double
        except Exception:
            continue
    return None


def double(x):
    found = _reference()
    if found is not None:
        return found(x)
    return np.full(np.shape(x), -1.0)


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
