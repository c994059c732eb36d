"""Concept check same_group_scale: the scale of the same-group baseline (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "same_group_scale",
    (),
    {
        "value": "(G - 1) / G = 7 / 8 = 0.875; the current reward's share R_i / G of the baseline removes "
        "1 / G of the expected signal",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
