"""Concept check response_mask_rows: the response mask of the lab batch (numeric).

The explanations below are the failure messages of the parts a student misses;
this file is never released.
"""

import pytest

from grader.answers import Numeric

QUESTION = Numeric(
    "response_mask_rows",
    (2, 6),
    {
        "row_1": "the labels are (10, 11, 20, 21, EOS, PAD): the two prompt labels are out, both response "
        "tokens and the generated EOS are in, PAD is out, so (0, 0, 1, 1, 1, 0); a mask aligned "
        "with input_ids instead of the shifted labels is off by one position",
        "row_2": "the labels are (12, 30, EOS, PAD, PAD, PAD) with prompt length 2, so 12 is prompt and 30 "
        "and EOS are the response: (0, 1, 1, 0, 0, 0)",
    },
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
