"""Concept check score_vector_action_2: the score vector of a softmax policy (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "score_vector_action_2",
    (3,),
    {
        "dz_0": "the score is onehot(a) - p with p = softmax(2, 1, 0) = (0.6652, 0.2447, 0.0900); component "
        "0 is 0 - 0.6652 = -0.6652",
        "dz_1": "component 1 is 0 - 0.2447 = -0.2447",
        "dz_2": "component 2 is 1 - 0.0900 = 0.9100; the components sum to zero, as every softmax score does",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
