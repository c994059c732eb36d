"""``grader autograde``: grade an nbgrader class (see :mod:`grader.autograde.pipeline`).

Kept empty so that importing a sub-module does not import nbgrader.
"""
