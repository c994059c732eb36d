"""Concept check sequence_credit_statements: one sequence-level coefficient and token credit (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "sequence_credit_statements",
    [
        "true: log pi(y|x) = sum_k log pi(y_k | x, y_<k), so A * grad sum_k log pi(...) is the score term of "
        "the whole response",
        "false: the coefficient is the same for every token, so it cannot single out the choice that "
        "mattered; credit is not localised",
        "true: a decisive token and a filler token of the same response get the same weight; that is what "
        "response-level means",
        "false: it is the score-function gradient of the whole-response objective; what it lacks is "
        "token-level credit, not the right objective",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
