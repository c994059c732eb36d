"""Concept check direct_dependence_statements: a reward that depends on theta directly (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "direct_dependence_statements",
    [
        "true: the product rule gives both terms; the score term accounts for the distribution moving, "
        "the direct term for f_theta changing with theta at a fixed outcome",
        "false: sampling from p_theta yields only the score term; when f_theta itself depends on theta, "
        "E[grad f_theta(X)] is part of the gradient too",
        "true: classical REINFORCE treats the environment's reward as fixed with respect to the policy "
        "parameters, so only the score term appears",
        "false: a penalty computed from the current policy depends on theta directly; stopping its gradient "
        "is a legitimate choice, but it defines a different computational objective, not the same one "
        "more cheaply",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
