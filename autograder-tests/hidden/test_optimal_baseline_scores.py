"""Concept check optimal_baseline_scores: the score vectors and squared norms behind b* (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "optimal_baseline_scores",
    (3, 2),
    {
        "score_action_1": "the score of a softmax with respect to its logits is onehot(a) - pi: for action 1, "
        "(1 - 0.8, 0 - 0.2) = (0.2, -0.2)",
        "score_action_2": "onehot(a) - pi for action 2 is (0 - 0.8, 1 - 0.2) = (-0.8, 0.8): the rarer action has the "
        "larger score",
        "squared_norms": "|g(1)|^2 = 0.2^2 + 0.2^2 = 0.08 and |g(2)|^2 = 0.8^2 + 0.8^2 = 1.28: these are the weights "
        "of Q in b* = E[|g|^2 Q] / E[|g|^2], sixteen times larger for the rare action",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
