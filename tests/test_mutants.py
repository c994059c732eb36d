"""The hidden tests are themselves tested: each one fails on some wrong implementation.

Wrong implementations ("mutants") live in tests/data/mutants/<function>/<name>.py,
each with a docstring naming its misconception and the phrase a failure message
must contain. Every mutant must lose points on its function, and every hidden test
function must fail for at least one mutant. (Functions that call a mutated one,
e.g. grad_log_softmax through stable_softmax, may lose points too; that is how a
student's own module behaves, so only the mutated function is graded here.)

All mutants are graded in one session (one pytest collection), each on its own
function only.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from grader.course import load_course
from tests.helpers import ROOT, build_submission, load_mutants

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
            f"tests/data/mutants/{mutant.function}/ does not name a function with hidden tests (misspelled?)")
        sid = str(mutant)
        path = build_submission(root / mutant.function / mutant.name, [mutant.path])
        plan[sid] = {"path": str(path), "only": [mutant.function]}
        mutants[sid] = mutant
    proc = subprocess.run([sys.executable, "-m", "grader.engine.batch"], input=json.dumps({"submissions": plan}),
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    results = {}
    for line in proc.stdout.splitlines():
        line = json.loads(line)
        results[line["id"]] = line["record"]["result"]
    assert set(results) == set(plan), set(plan) - set(results)
    return mutants, results


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
        messages = " | ".join(t["message"] for t in failed)
        assert mutant.expect.lower() in messages.lower(), (
            f"mutant {mutant}: no failure message names the misconception ('{mutant.expect}'); got: {messages}")
        killed |= {base_name(t["name"]) for t in failed}
    survivors = sorted(all_tests - killed)
    assert not survivors, f"hidden tests of {function} that no mutant fails (they test nothing): {survivors}"
