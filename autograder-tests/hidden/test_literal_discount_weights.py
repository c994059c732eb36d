"""Concept check literal_discount_weights: score weights of the literal discounted objective (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "literal_discount_weights",
    (3,),
    {
        "t0": "G_0 = 1 + 0.5*2 + 0.25*3 = 2.75 and gamma^0 = 1, so the weight is 2.75",
        "t1": "the literal objective discounts from the start of the episode, so the weight is "
        "gamma^1 * G_1 = 0.5 * 3.5 = 1.75; G_1 alone belongs to a differently normalised objective "
        "(e.g. a discounted occupancy measure)",
        "t2": "gamma^2 * G_2 = 0.25 * 3 = 0.75; G_2 = 3 alone drops the outer discount",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
