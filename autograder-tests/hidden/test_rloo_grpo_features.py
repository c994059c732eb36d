"""Concept check rloo_grpo_features: what RLOO and GRPO share and where they differ (choice among labels).

The explanations below are the failure messages of the parts a student misses;
this file is never released. Item 6 accepts "grpo" and "both": the module says canonical GRPO adds
regularisation toward a reference policy and never says basic RLOO lacks it (docs/concept_checks.md).
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
        "grpo (or both): canonical GRPO adds regularisation toward a reference policy, so rloo and neither "
        "miss it; the module does not say whether basic RLOO has one (RLOO for RLHF often puts a KL penalty "
        "toward the reference into the reward), so both is accepted too",
        "both: each forms a relative signal within the group rather than an absolute one",
    ],
    also={6: ("both",)},
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
