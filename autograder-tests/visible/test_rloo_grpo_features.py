"""Visible check of rloo_grpo_features: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Choice

FORMAT = Choice("rloo_grpo_features", ("both", "rloo", "grpo", "neither"), [""] * 7)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
