"""Concept check reinforce_transition_cases: when REINFORCE needs no transition derivatives (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "reinforce_transition_cases",
    [
        "true: the simulator's factors appear in p_theta(tau), but their logarithm has zero derivative in "
        "theta, so only the policy's score terms remain",
        "false: transition probabilities that depend on theta add grad log P_theta(s'|s,a) terms to the "
        "score of the trajectory",
        "true: the reward is evaluated, not differentiated; it multiplies the score and so decides which way "
        "the update goes",
        "false: backpropagating through a world model is a different, pathwise estimator, and the "
        "transition derivatives are part of it",
        "false: the environment still decides which states and rewards get sampled; a zero transition "
        "derivative does not mean the dynamics leave the estimate untouched through the data",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
