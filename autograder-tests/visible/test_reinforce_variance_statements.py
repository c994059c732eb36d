"""Visible check of reinforce_variance_statements: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import TrueFalse

FORMAT = TrueFalse("reinforce_variance_statements", [""] * 4)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
