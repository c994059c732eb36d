"""Visible check of lab_gae_advantages: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric(
    "lab_gae_advantages", (2,), dict.fromkeys(["record_0", "record_1"], ""), tolerance={"rtol": 0.0, "atol": 0.001}
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
