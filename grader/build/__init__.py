"""``grader build``: the course as an nbgrader course directory (see :mod:`grader.build.pipeline`).

Kept empty so that importing a sub-module (the command's parser, say) does not
import nbformat and nbgrader.
"""
