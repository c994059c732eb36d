"""Concept check group_baseline_statements: same-group mean versus leave-one-out (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "group_baseline_statements",
    [
        "true: the group mean is (R_i + sum of the others) / G, and R_i is a function of the current "
        "response itself, so the baseline is not independent of its score",
        "true: the other responses were drawn independently given the prompt, so E[b_i * score_i] = "
        "E[b_i] * E[score_i] = 0",
        "false: in a constant group both constructions give zero; there is no ranking signal within the group at all",
        "true: R_i - (S - R_i) / (G - 1) = (G * R_i - S) / (G - 1) = G / (G - 1) * (R_i - S / G), with S the "
        "group's total",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
