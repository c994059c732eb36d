"""Moved to :mod:`grader.notebooks.extract` (the extraction every verb uses); kept so old imports work."""

from grader.notebooks.extract import *  # noqa: F401,F403
