"""Concept check baseline_validity: which baselines keep the policy gradient unbiased (choice among labels).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Choice

QUESTION = Choice(
    "baseline_validity",
    ("unbiased", "biased", "scaled"),
    [
        "unbiased: a constant does not depend on the action and the score has mean zero, so their "
        "product has mean zero",
        "unbiased: a function of the state alone is fixed given s_t, so the zero-mean score argument applies unchanged",
        "unbiased: with independent samples the other responses are conditionally independent of the "
        "current one, so the baseline times the score averages to zero",
        "biased: Q(s_t, a_t) depends on the very action whose score it multiplies, so the zero-mean "
        "argument fails; it is not valid without a correction term",
        "scaled: the group mean contains R_i / G, which depends on the current response; the expected "
        "gradient shrinks by the factor (G - 1) / G instead of staying intact",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
