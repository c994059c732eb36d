"""Visible check of response_mask_rows: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric(
    "response_mask_rows", (2, 6), dict.fromkeys(["row_1", "row_2"], ""), tolerance={"rtol": 0.0, "atol": 0.001}
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
