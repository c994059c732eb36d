"""Concept check reinforce_variance_statements: what the variance of REINFORCE depends on (true or false).

The lab's takeaway: "REINFORCE does not require differentiable reward, but its variance depends on
parameterization and baseline"; the worked answers on b*: it "weights action values by squared score
norm. The rarer second action has a much larger score vector and therefore receives much more weight
than it does in V". The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "reinforce_variance_statements",
    [
        "true: the identity moves the derivative onto log p_theta of the sampled outcome; the reward is "
        "evaluated, never differentiated, so a program or a human can supply it",
        "false: with z = 2 * theta the score with respect to theta is 2 (onehot(a) - pi), so every estimate "
        "doubles and its variance is four times larger: the variance depends on the parameterisation, not "
        "only on the probabilities",
        "true: a baseline that does not depend on the action leaves the expected gradient unchanged but "
        "changes the spread of the estimates (b* minimises it)",
        "true: b* = E[|g|^2 Q] / E[|g|^2]; a rare action has a larger score vector, so b* moves toward its "
        "value much more than V = E[Q] does",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
