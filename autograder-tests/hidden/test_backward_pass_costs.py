"""Concept check backward_pass_costs: time and extra storage of the rewards-to-go's backward pass (choice).

The worked answers (reward_to_go): "One backward pass gives O(T) time and constant additional storage
beyond the result." The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Choice

QUESTION = Choice(
    "backward_pass_costs",
    ("constant", "linear", "quadratic"),
    [
        "linear: one pass over the T rewards, one multiply-add per step, O(T); summing every G_t from scratch "
        "would be quadratic, which the recursion G_t = r_t + gamma * G_(t+1) avoids",
        "constant: only the running sum is carried from one step to the next; nothing but the result grows "
        "with T (the module: constant additional storage beyond the result), no stack or reversed copy",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
