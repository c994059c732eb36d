"""The instructor's report of a graded class: ``grader report RESULTS_DIR`` (see :mod:`grader.report.build`)."""
