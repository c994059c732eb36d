"""Trivial answers earn nothing.

Every body of tests/data/trivial/bodies.py (raise ValueError, raise NotImplementedError,
return zeros, ones or NaN in the right shape, None, the first argument), and a body that memorised the
published worked examples (their answers, zeros elsewhere), as the implementation of every
function exercise, must score exactly 0: the contract's tests
earn only when the function computes right (grader.core.results), and every other test
a trivial body could pass is written as a pair. All are graded in one session.
"""

from __future__ import annotations

import pytest

from grader.core.course import load_course
from tests.helpers import ROOT, build_submission, grade_plan, trivial_plan

COURSE = load_course(ROOT, check_tests=False)
FUNCTIONS = [e.function for e in COURSE.exercises if e.kind == "function"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_plan(trivial_plan(COURSE, tmp_path_factory.mktemp("trivial"), FUNCTIONS))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_trivial_bodies_earn_nothing(function, graded):
    earned = {}
    for sid, result in graded.items():
        if sid.startswith(f"{function}/"):
            f = result["functions"][function]
            earned[sid] = (f["score"], [t["name"] for t in f["tests"] if t["passed"]])
    assert len(earned) >= 7, earned
    assert all(score == 0 for score, _ in earned.values()), {sid: e for sid, e in earned.items() if e[0]}


FAKED = ROOT / "tests" / "data" / "faked"


def test_faked_simulation_earns_nothing(tmp_path):
    # Exact moments plus seeded noise pass every statistical test of the simulation; only the check of the
    # specified draw fails, and it is a gate (issue 22, item 8): before, this body earned 2.86/3.
    body = FAKED / "simulate_group_baseline_bias" / "exact_moments_with_noise.py"
    path = build_submission(tmp_path / "faked", [body])
    result = grade_plan({"faked": {"path": str(path), "only": ["simulate_group_baseline_bias"]}})["faked"]
    graded = result["functions"]["simulate_group_baseline_bias"]
    failed = [t for t in graded["tests"] if not t["passed"]]
    assert [t["name"] for t in failed] == ["test_follows_specified_draw"], failed  # the attack still fakes well
    assert failed[0]["gate"], failed[0]
    assert graded["score"] == 0, graded["score"]
