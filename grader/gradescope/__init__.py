"""``grader gradescope``: the autograder package of an assignment for Gradescope.

:mod:`grader.gradescope.package` writes ``autograder.zip``;
:mod:`grader.gradescope.autograder` is what it runs on each submission.
"""
