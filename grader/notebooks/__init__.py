"""Notebooks as submissions: reading a student's notebook safely and extracting its solution cells.

One part that every verb uses (``build``'s leak check, ``grade``, ``check``, ``grade-class``,
``autograde``, ``gradescope``): :mod:`grader.notebooks.extract` reads and checks a notebook
and writes its solution cells as modules shaped like ``exercises/``.
"""
