"""The hidden tests are themselves tested: each one fails on some wrong implementation.

Wrong implementations ("mutants") live in autograder-tests/mistakes/<function>/<name>.py
(the known mistakes of the function exercises, also used for diagnosis) and
tests/data/mutants/<function>/<name>.py (labs and answers), each with a docstring naming
its misconception and the phrase the FIRST message must contain: the message a student
reads first (the diagnosis, else the first failed test in diagnostic order). Every mutant
must lose points on its function, and every hidden test function must fail for at least
one mutant. (Functions that call a mutated one, e.g. grad_log_softmax through
stable_softmax, may lose points too; that is how a student's own module behaves, so only
the mutated function is graded here.)

All mutants are graded in one session (one pytest collection), each on its own
function only.
"""

from __future__ import annotations

import re

import pytest

from grader.core.course import load_course
from grader.core.results import messages_of
from tests.helpers import ROOT, build_submission, grade_plan, load_mutants

COURSE = load_course(ROOT, check_tests=False)
FUNCTIONS = [f for f in COURSE.functions if COURSE.hidden_test_file(f).is_file()]


def base_name(test_name: str) -> str:
    return re.sub(r"\[.*\]$", "", test_name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade the reference (every function) and every mutant (its function) at once."""
    root = tmp_path_factory.mktemp("mutants")
    plan = {"@reference": {"path": str(COURSE.solutions_dir), "only": FUNCTIONS}}
    mutants = {}
    for mutant in load_mutants():
        assert mutant.function in FUNCTIONS, (
            f"{mutant.path.parent} does not name a function with hidden tests (misspelled?)"
        )
        sid = str(mutant)
        path = build_submission(root / mutant.function / mutant.name, [mutant.path])
        plan[sid] = {"path": str(path), "only": [mutant.function]}
        mutants[sid] = mutant
    return mutants, grade_plan(plan)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_hidden_test_fails_on_some_mutant(function, graded):
    mutants, results = graded
    ref = results["@reference"]["functions"][function]
    assert ref["score"] == ref["max"], [t for t in ref["tests"] if not t["passed"]]
    all_tests = {base_name(t["name"]) for t in ref["tests"]}

    mine = {sid: m for sid, m in mutants.items() if m.function == function}
    assert mine, f"no wrong implementations in tests/data/mutants/{function}/"
    killed: set[str] = set()
    for sid, mutant in mine.items():
        f = results[sid]["functions"][function]
        assert f["score"] < f["max"], f"mutant {mutant} earned full marks: the tests miss '{mutant.summary}'"
        failed = [t for t in f["tests"] if not t["passed"]]
        first = (messages_of(f) or [f["error"] or ""])[0]
        assert mutant.expect.lower() in first.lower(), (
            f"mutant {mutant}: the first message does not name the misconception ('{mutant.expect}'); it reads: {first}"
        )
        killed |= {base_name(t["name"]) for t in failed}
    survivors = sorted(all_tests - killed)
    assert not survivors, f"hidden tests of {function} that no mutant fails (they test nothing): {survivors}"


def test_a_lab_mutant_trains_and_its_message_says_where_the_replay_first_differed(graded):
    # mask_not_shifted differs on the first call of the reference training: the lab trains with it
    # (and fails, as before), and the student also reads which call first differed, without a value.
    # (Checked on the grading above rather than grading the mutant a second time.)
    mutants, results = graded
    [sid] = [sid for sid, m in mutants.items() if (m.function, m.name) == ("sequence_rloo_lab", "mask_not_shifted")]
    lab = results[sid]["functions"]["sequence_rloo_lab"]
    assert lab["score"] == 0, lab
    messages = [t["message"] for t in lab["tests"] if not t["passed"]]
    assert len(messages) == 3, messages  # one per seed
    for message in messages:
        assert "not aligned with the labels" in message, message  # the training's cross-check, as before
        assert (
            "Replaying the reference training's calls, your functions first differed in response_token_mask "
            "(its call 1 in the reference training): its answer differs from the reference's"
        ) in message, message
