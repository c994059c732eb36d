"""Concept check ppo_clip_interval: the PPO clip interval (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "ppo_clip_interval",
    (2,),
    {
        "low": "the ratio is clipped to [1 - epsilon, 1 + epsilon]; the lower end is 1 - 0.2 = 0.8",
        "high": "the upper end is 1 + 0.2 = 1.2",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
