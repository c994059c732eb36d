"""Concept check evaluation_protocol_statements: what the lab's curves establish and what they do not (true or false).

The lab notebook: "A rising curve from one convenient seed would not establish robustness, and CartPole
performance does not transfer automatically to LLMs. The plot verifies the end-to-end implementation
contract [...] Meaningful method comparisons require aligned budgets, several seeds, and uncertainty
summaries"; its diagnostics "are batch-local quantities, not universal thresholds"; "a successful smoke
run validates the code contract, not the method's scaling behavior". The explanations below are the
failure messages of the parts a student misses; this file is never released.
"""

import pytest

from grader.answers import TrueFalse

QUESTION = TrueFalse(
    "evaluation_protocol_statements",
    [
        "false: one convenient seed shows one run; robustness needs several seeds and their spread, since "
        "another seed may train worse or not at all",
        "true: methods compared on different budgets or on single seeds differ by chance as much as by method; "
        "aligned budgets, several seeds and an uncertainty summary (the median and interquartile range over "
        "seeds) are what a comparison needs",
        "true: a smoke run checks that collection, targets, repeated optimisation and evaluation fit "
        "together: the curve's boundary of inference is the code contract, not the method's scaling",
        "false: CartPole performance does not transfer automatically to LLMs; post-training adds a reference "
        "policy, reward models or verifiers, length control and systems constraints the lab does not have",
        "false: the diagnostics are batch-local quantities of one run and one optimisation step, not "
        "universal thresholds",
    ],
)


@pytest.mark.parametrize("part", QUESTION.parts())
def test_answer(impl, part):
    QUESTION.check(impl, part)
