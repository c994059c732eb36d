"""The grading engine: one pytest driver, one record, one way to grade a class, here or on a cluster.

- :mod:`grader.engine.parcel`: a submission as its files' bytes (what travels to a grading session);
- :mod:`grader.engine.driver`: the one pytest session that grades a stream of submissions;
- :mod:`grader.engine.record`: :class:`GradeRecord`, the typed record every reader uses;
- :mod:`grader.engine.store`: the results directory (one record per student, written atomically);
- :mod:`grader.engine.dispatch`: hand submissions to grading sessions, retry, save each record;
- :mod:`grader.engine.events`: :class:`RunListener`, what a class run tells those who follow it;
- :mod:`grader.engine.local`: grading sessions in trusted processes on this machine;
- :mod:`grader.engine.cluster`: grading sessions on the workers of a Dask cluster;
- :mod:`grader.engine.batch`: many submissions, each on its own functions (the course's mutant tests).

It imports the core library (:mod:`grader.core`), the worker and the sandbox, never a command;
commands import it and never each other (docs/architecture.md, checked by tests/test_architecture.py).
"""
