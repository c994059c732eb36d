"""The autograder tests get the student's code through the grader's plugin (`impl`)."""

pytest_plugins = ["grader.core.plugin"]
