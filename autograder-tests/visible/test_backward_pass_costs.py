"""Visible check of backward_pass_costs: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Choice

FORMAT = Choice("backward_pass_costs", ("constant", "linear", "quadratic"), [""] * 2)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
