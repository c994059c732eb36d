"""Concept check buffer_boundary_flags: case II: the end of a rollout buffer (flags).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Flags

QUESTION = Flags(
    "buffer_boundary_flags",
    {
        "bootstrap": "True: the same episode goes on, so its next state has a value and the target needs it",
        "recursion_continues": "False: this array holds no next record of the episode; the continuation is "
        "in the next fragment, which this GAE call does not see (a streaming "
        "implementation could carry the recursion across fragments)",
        "terminated": "False: the episode has not ended; there is a continuation value",
        "trace_cut": "True: the last local record has nothing after it to recurse into",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
