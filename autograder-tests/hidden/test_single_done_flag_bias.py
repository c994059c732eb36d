"""Concept check single_done_flag_bias: what one done flag does to value targets (choice among labels).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Choice

QUESTION = Choice(
    "single_done_flag_bias",
    ("higher", "lower", "unchanged"),
    [
        "lower: zeroing a positive continuation gamma * V(s') removes value, so targets near time limits "
        "and buffer ends are biased downward",
        "higher: zeroing a negative continuation removes a penalty, so the target is biased upward",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
