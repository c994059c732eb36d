"""``grader feedback``: one page per student from a results directory (:mod:`.write`)."""
