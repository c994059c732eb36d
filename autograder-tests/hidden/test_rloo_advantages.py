"""Concept check rloo_advantages: leave-one-out advantages of a group of four (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "rloo_advantages",
    (4,),
    {
        "response_1": "the others average (0 + 1 + 5) / 3 = 2, so 2 - 2 = 0",
        "response_2": "the others average (2 + 1 + 5) / 3 = 8/3, so 0 - 8/3 = -2.667",
        "response_3": "the others average (2 + 0 + 5) / 3 = 7/3, so 1 - 7/3 = -1.333",
        "response_4": "the others average (2 + 0 + 1) / 3 = 1, so 5 - 1 = 4; every RLOO advantage is 4/3 of "
        "the centred one (the group mean is 2)",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
