"""Concept check streaming_gae_statements: a buffer boundary, a separate GAE call or a streaming one (true or false).

The worked answers, case II (a local rollout-buffer boundary): bootstrap, yes; the next advantage "not
inside this array when the following fragment is not joined to the GAE computation. A streaming
implementation could carry recursion state across fragments"; terminated=False, trace_cut=True on
the final local record. The explanations below are the failure messages of the parts a student
misses; this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "streaming_gae_statements",
    [
        "true: the next record of the array is not this episode's continuation, so the recursion must stop "
        "there (trace_cut=True) while terminated stays False: the episode goes on, and its value still counts",
        "true: the cut belongs to the array, not to the episode; an implementation that joins the next "
        "fragment to the computation, carrying the recursion state across, need not cut there",
        "false: the recursion stops, the bootstrap does not: the last record's advantage is its TD error "
        "r + gamma * V(next observation) - V(s), with the value of its true next observation (not terminated)",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
