"""Visible check of policy_loss_tokens: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import MultiSelect

FORMAT = MultiSelect("policy_loss_tokens", dict.fromkeys(range(1, 6), ""))


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
