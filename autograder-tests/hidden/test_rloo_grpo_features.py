"""Concept check rloo_grpo_features: what RLOO and GRPO share and where they differ (choice among labels).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Choice

QUESTION = Choice(
    "rloo_grpo_features",
    ("both", "rloo", "grpo", "neither"),
    [
        "both: each draws a group of responses to one prompt; the baseline comes from that group",
        "neither: the group itself takes the critic's place; no value network is trained",
        "rloo: the leave-one-out mean is RLOO's baseline; GRPO centres (and usually scales) on statistics "
        "of the whole group",
        "grpo: canonical GRPO optimises a PPO-like clipped ratio objective; basic RLOO is a plain REINFORCE objective",
        "grpo: GRPO usually normalises the group signal; basic RLOO only subtracts the leave-one-out mean",
        "grpo: canonical GRPO adds a penalty toward a reference policy; basic RLOO has none",
        "both: each forms a relative signal within the group rather than an absolute one",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
