"""Concept check ppo_worked_example: PPO diagnostics of four rows (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "ppo_worked_example",
    (4,),
    {
        "ratio_outside_fraction": "all four ratios lie outside [0.8, 1.2], so the fraction is 4/4 = 1",
        "active_clip_fraction": "clipping changes min(r*A, clip(r)*A) only in rows 1 (r = 1.5, A > 0: 2.4 < 3) "
        "and 4 (r = 0.5, A < 0: -1.6 < -1), so 2/4 = 0.5; rows 2 and 3 lie outside "
        "the interval too, but there the unclipped term is already the smaller one",
        "mean_objective": "the pessimistic terms are (2.4, 0.5, -1.5, -1.6), whose mean is -0.2 / 4 = -0.05",
        "approx_kl": "each r = 1.5 gives 0.5 - log 1.5 = 0.094535 and each r = 0.5 gives -0.5 - log 0.5 = "
        "0.193147; the mean of the four is 0.143841",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
