"""Concept check policy_loss_tokens: which label positions enter the policy loss (multiple select).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import MultiSelect

QUESTION = MultiSelect(
    "policy_loss_tokens",
    {
        1: "leave out: the prompt was given to the policy, not chosen by it",
        2: "keep: these tokens are the policy's actions",
        3: "keep: stopping is a decision of the policy, so the generated EOS is an action of the response",
        4: "leave out: padding is a storage artefact, not an action",
        5: "leave out: the response ends at its first EOS; whatever is stored after it is not part of it",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
