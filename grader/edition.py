"""Which build of the grader this is: the course's own, or the checker of a student kit.

The course repository installs the full grader: every command. ``grader build`` puts a copy of this
package into each student kit's wheel (:mod:`grader.build.kit`), without the instructors' commands,
and writes this file anew there with ``STUDENT = True``: the ``grader`` command of a kit then offers
what a student uses (``check``, ``modules``, ``help``) and says so when asked for anything else. The
mark travels with the package that is imported, so it holds whatever folder the student is in.
"""

STUDENT = False
KIT = ""  # in a student build, the kit's id ("ps4b", "all")
