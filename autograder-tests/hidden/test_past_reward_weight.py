"""Concept check past_reward_weight: which rewards can leave the weight of a score term (choice among labels).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Choice

QUESTION = Choice(
    "past_reward_weight",
    ("a", "b", "c", "d"),
    "(a): once the history up to s_t is given, the earlier rewards are fixed numbers, and a fixed "
    "number times the score has conditional expectation zero; only rewards the action can influence "
    "(r_t onwards) need to stay",
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
