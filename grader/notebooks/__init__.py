"""Notebooks and nbgrader, shared by the verbs: reading a student's notebook safely, extracting its
solution cells, and the nbgrader course directory the build writes and autograde reads.

- :mod:`grader.notebooks.extract`: read and check a notebook, write its solution cells as modules
  shaped like ``exercises/`` (``build``'s leak check, ``grade``, ``check``, ``grade-class``,
  ``autograde``, ``gradescope``);
- :mod:`grader.notebooks.submission`: whatever a student hands in (modules, notebooks or both) as modules;
- :mod:`grader.notebooks.segments`, :mod:`grader.notebooks.cells`: a solutions module cut into a
  notebook's pieces, and the cells (with nbgrader metadata) that hold them;
- :mod:`grader.notebooks.coursedir`: the nbgrader course directory, its config and build manifest;
- :mod:`grader.notebooks.gradebook`: nbgrader's gradebook and configuration (imports nbgrader).

:mod:`grader.notebooks.command` is the ``grader modules`` command, a verb like the others.
"""
