"""Concept check detach_statements: the detach contract of the actor loss (true or false per statement).

The lab notebook's takeaway (section 6): advantages used by the actor loss need an explicit
detach contract. The explanations below are the failure messages of the parts a student
misses; this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "detach_statements",
    [
        "true: the score-function estimator weights grad log pi(a|s) by the advantage as a number; the "
        "advantage is computed from the rollout and the critic and must enter the actor loss detached",
        "true: when the actor loss's gradient can reach the critic's weights (a shared trunk, or one optimiser "
        "stepping on the summed loss), an attached advantage sends it into the critic, moving the values to make "
        "the surrogate larger instead of fitting the returns (the critic has its own loss)",
        "false: the policy gradient E[A * grad log pi] treats the advantage as a coefficient; detaching "
        "it is what the estimator prescribes, and differentiating through it would add a term that is not "
        "part of the policy gradient",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
