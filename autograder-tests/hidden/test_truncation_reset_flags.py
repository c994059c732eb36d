"""Concept check truncation_reset_flags: case I: a time limit followed by reset() (flags).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Flags

QUESTION = Flags(
    "truncation_reset_flags",
    {
        "bootstrap": "True: the task could have gone on, so the final observation still has a continuation "
        "value; bootstrap from it before reset() replaces it",
        "recursion_continues": "False: after reset() the next record belongs to another episode; it is next "
        "to this one in storage only",
        "terminated": "False: terminated says that no continuation value exists, which is not so at a time limit",
        "trace_cut": "True: the backward recursion must stop here because the next record is another episode",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
