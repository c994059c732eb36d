"""Concept check score_identity_correct: which statements about the score-function identity hold (multiple select).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import MultiSelect

QUESTION = MultiSelect(
    "score_identity_correct",
    {
        1: "not correct: the draw of X stays discrete and no gradient flows through it; the identity gives "
        "a different estimator, one that weights the score of the sampled outcome by f",
        2: "correct: the derivative is moved onto log p_theta(X), so f is only evaluated at the sampled "
        "outcome and never differentiated",
        3: "not correct: the estimator is unbiased but still a Monte Carlo average whose variance can be "
        "large; that is why baselines matter",
        4: "correct: only log p_theta, evaluated at the drawn sample, needs a derivative; the reward "
        "may come from a verifier, a program or a person",
        5: "not correct: the derivation swaps the derivative with the sum or integral over outcomes, which "
        "needs regularity conditions; without them the identity can fail",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
