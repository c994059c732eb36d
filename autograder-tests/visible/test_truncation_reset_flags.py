"""Visible check of truncation_reset_flags: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Flags

FORMAT = Flags(
    "truncation_reset_flags", dict.fromkeys(["bootstrap", "recursion_continues", "terminated", "trace_cut"], "")
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
