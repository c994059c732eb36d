"""Visible check of ppo_worked_example: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric(
    "ppo_worked_example",
    (4,),
    dict.fromkeys(["ratio_outside_fraction", "active_clip_fraction", "mean_objective", "approx_kl"], ""),
    tolerance={"rtol": 0.0, "atol": 0.001},
)


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
