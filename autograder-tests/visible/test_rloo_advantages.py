"""Visible check of rloo_advantages: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric(
    "rloo_advantages",
    (4,),
    dict.fromkeys(["response_1", "response_2", "response_3", "response_4"], ""),
    tolerance={"rtol": 0.0, "atol": 0.001},
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
