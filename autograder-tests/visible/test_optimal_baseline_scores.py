"""Visible check of optimal_baseline_scores: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric(
    "optimal_baseline_scores",
    (3, 2),
    dict.fromkeys(["score_action_1", "score_action_2", "squared_norms"], ""),
    tolerance={"rtol": 0.0, "atol": 0.001},
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
