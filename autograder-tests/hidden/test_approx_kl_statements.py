"""Concept check approx_kl_statements: what the approximate KL diagnostic is (true or false per statement).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "approx_kl_statements",
    [
        "true: log r <= r - 1 for every r > 0, so each term is at least zero (zero only at r = 1)",
        "true: E_old[r] = 1, so E_old[(r - 1) - log r] = -E_old[log r] = KL(pi_old || pi_new), the KL with the "
        "sampling policy first that the module calls the reverse KL (reverse to KL(pi_new || pi_old), which would "
        "average over the new policy's actions, absent from the batch)",
        "false: it is a diagnostic of one finite batch; it estimates a divergence but enforces no constraint",
        "false: clipping removes the incentive to push a ratio further only where it is active, where the "
        "clipped branch is the pessimistic minimum (a ratio past the end its advantage favours); a ratio outside "
        "the interval on the other side keeps its gradient. It limits the local surrogate gain, not the "
        "distance the policy can move: no trust region",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
