"""Concept check optimal_baseline_values: the state value versus the optimal constant baseline (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "optimal_baseline_values",
    (2,),
    {
        "value": "V = sum_a pi(a) Q(a) = 0.8 * 1 + 0.2 * 10 = 2.8",
        "b_star": "with the squared score norms 0.08 and 1.28 of question 22, b* = (0.8*0.08*1 + 0.2*1.28*10) / "
        "(0.8*0.08 + 0.2*1.28) = 2.624 / 0.32 = 8.2: the rare action's much larger score makes it "
        "dominate b*",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
