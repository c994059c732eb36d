"""Tries to change files outside its directory: the course, the repository, the canary.

target: double
bound: 25
expect: double
"""

import os
import shutil

import numpy as np

TARGETS = ["@@CANARY@@/planted.txt", "@@COURSE_ROOT@@/solutions/toy.py", "@@REPO_ROOT@@/planted.txt",
           "/tmp/grader-hostile-planted.txt", os.path.expanduser("~/planted.txt"), "/usr/planted.txt"]


def double(x):
    done = []
    for path in TARGETS:
        try:
            with open(path, "w") as out:
                out.write("planted\n")
            done.append(path)
        except OSError:
            pass
    for path in ("@@CANARY@@/keep.txt", "@@COURSE_ROOT@@/course.yaml"):
        try:
            os.remove(path)
        except OSError:
            pass
    shutil.rmtree("@@CANARY@@", ignore_errors=True)
    return np.full(np.shape(x), -1.0 - len(done))


def add(a, b):
    return float(a) + float(b)


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
