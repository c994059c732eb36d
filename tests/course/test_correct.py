"""Correct alternatives keep full marks.

tests/data/correct/<function>/ holds at least two independent correct implementations of
every function exercise (vectorised or looped, math.fsum, einsum, np.where, the sign rule
instead of a minimum, ...). Each must earn full marks on its function, so that no test
depends on the reference's floating-point path; if one loses points, the test (or its
tolerance) is wrong. All are graded in one session.
"""

from __future__ import annotations

import pytest

from grader.core.course import load_course
from tests.helpers import CORRECT, ROOT, build_submission, grade_plan

COURSE = load_course(ROOT, check_tests=False)
FUNCTIONS = [e.function for e in COURSE.exercises if e.kind == "function"]
IMPLEMENTATIONS = sorted(CORRECT.glob("*/*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("correct")
    plan = {}
    for path in IMPLEMENTATIONS:
        assert path.parent.name in FUNCTIONS, f"{path.parent} does not name a function exercise"
        submission = build_submission(root / path.parent.name / path.stem, [path])
        plan[f"{path.parent.name}/{path.stem}"] = {"path": str(submission), "only": [path.parent.name]}
    return grade_plan(plan)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_correct_alternatives_earn_full_marks(function, graded):
    mine = {sid: result["functions"][function] for sid, result in graded.items() if sid.startswith(f"{function}/")}
    assert len(mine) >= 2, f"tests/data/correct/{function}/ needs at least two independent implementations"
    for sid, f in mine.items():
        assert f["score"] == f["max"], (
            sid,
            f["error"],
            [(t["name"], t["message"]) for t in f["tests"] if not t["passed"]],
        )
