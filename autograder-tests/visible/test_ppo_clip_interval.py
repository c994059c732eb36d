"""Visible check of ppo_clip_interval: the format of the answer only (type, length, allowed values).

The question's structure, with no key and no explanation: those stay in the hidden tests.
"""

from grader.answers import Numeric

FORMAT = Numeric("ppo_clip_interval", (2,), dict.fromkeys(["low", "high"], ""), tolerance={"rtol": 0.0, "atol": 0.001})


def test_format(impl):
    """The answer is given, in the format its question asks for."""
    FORMAT.check_format(impl)
