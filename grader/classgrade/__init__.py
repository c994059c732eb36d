"""``grader grade-class``: grade a directory of submissions with the engine (:mod:`grader.engine`),
on this machine or on a Dask cluster, resumably. :func:`grader.classgrade.run.discover_submissions`
finds the students."""
