"""Concept check implementation_notes: details of the reference code (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "implementation_notes",
    [
        "false: softmax does not change when the same constant is added to every logit, so the shift "
        "changes nothing except that exp can no longer overflow",
        "true: G_t = r_t + gamma * G_(t+1) reuses the value just computed, one step at a time from the end",
        "true: the course divides by sqrt(mean((R - mean R)^2)), the within-group population standard "
        "deviation, a common convention",
        "false: a ratio outside the interval changes the objective only when the clipped term is the smaller "
        "one, which depends on the sign of the advantage; active_clip_fraction counts only those rows",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
