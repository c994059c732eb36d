"""Errors the grader reports to people (a message, never a traceback)."""


class GraderError(Exception):
    """The grader itself cannot run: a bad path, an invalid course.yaml, ...

    The command-line entry point prints the message and exits non-zero.
    """


class CourseError(GraderError):
    """course.yaml or a file it names is invalid."""
