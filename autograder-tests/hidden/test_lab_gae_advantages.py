"""Concept check lab_gae_advantages: the lab's GAE example (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "lab_gae_advantages",
    (2,),
    {
        "record_0": "delta_0 = 1 + 0.9 * 10 - 2 = 8 (not terminated, so it bootstraps) and the trace cut "
        "stops the recursion, so A_0 = 8; 98 means record 1 leaked across the cut, -1 means the "
        "bootstrap was dropped",
        "record_1": "record 1 is terminal: delta_1 = 100 + 0 - 0 = 100 and nothing follows it, so A_1 = 100",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
