"""The hidden tests are themselves tested: each one fails on some wrong implementation.

Wrong implementations ("mutants") live in tests/data/mutants/<function>/<name>.py,
each with a docstring naming its misconception and the phrase a failure message
must contain. Every mutant must lose points on its function, and every hidden test
function must fail for at least one mutant. (Functions that call a mutated one,
e.g. grad_log_softmax through stable_softmax, may lose points too; that is how a
student's own module behaves.)
"""

from __future__ import annotations

import re

import pytest

from grader.course import load_course
from tests.helpers import ROOT, build_submission, grade_json, load_mutants

COURSE = load_course(ROOT, check_tests=False)
FUNCTIONS = [f for f in COURSE.functions if COURSE.hidden_test_file(f).is_file()]


def base_name(test_name: str) -> str:
    return re.sub(r"\[.*\]$", "", test_name)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_hidden_test_fails_on_some_mutant(function, tmp_path):
    mutants = load_mutants(function)
    assert mutants, f"no wrong implementations in tests/data/mutants/{function}/"
    submissions = [build_submission(tmp_path / m.name, [m.path]) for m in mutants]
    reference, *graded = grade_json(COURSE.solutions_dir, *submissions, only=[function])

    ref = reference["functions"][function]
    assert ref["score"] == ref["max"], [t for t in ref["tests"] if not t["passed"]]
    all_tests = {base_name(t["name"]) for t in ref["tests"]}

    killed: set[str] = set()
    for mutant, result in zip(mutants, graded):
        f = result["functions"][function]
        assert f["score"] < f["max"], f"mutant {mutant} earned full marks: the tests miss '{mutant.summary}'"
        failed = [t for t in f["tests"] if not t["passed"]]
        messages = " | ".join(t["message"] for t in failed)
        assert mutant.expect.lower() in messages.lower(), (
            f"mutant {mutant}: no failure message names the misconception ('{mutant.expect}'); got: {messages}")
        killed |= {base_name(t["name"]) for t in failed}
    survivors = sorted(all_tests - killed)
    assert not survivors, f"hidden tests of {function} that no mutant fails (they test nothing): {survivors}"
