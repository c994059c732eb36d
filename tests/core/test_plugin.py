"""The pytest plugin keeps each submission's state apart (grader/core/plugin.py, grader/engine/driver.py)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np

from grader.core.course import load_course
from grader.core.diagnosis import Call
from grader.core.plugin import GradingPlugin
from grader.core.results import TestOutcome
from tests.helpers import run_grader
from tests.toy_course import HIDDEN_TESTS, make_toy_course, solution_source, wrong_source

# A property test of the toy course's `double` whose setup fails from its second run on: it stands
# for any setup that fails for one submission and not for the one before it.
SETUP_FAILS_ONCE_USED = """

import pytest

RUNS = []


@pytest.fixture
def fails_after_first_use():
    RUNS.append(1)
    if len(RUNS) > 1:
        raise RuntimeError("this setup fails from its second run on")


@pytest.mark.property
def test_double_on_a_range(impl, fails_after_first_use):
    x = np.linspace(-1.0, 1.0, 5)
    expect_close(impl.double(x), 2.0 * x, "double is wrong on a range")
"""


def test_a_test_failing_at_setup_keeps_nothing_of_the_submission_before(tmp_path):
    # The engine runs the same collected items once per submission. A test that failed at its
    # setup was recorded with the calls its run on the submission before had left in the item's
    # stash: the diagnosis of the second student read the first one's answers.
    root = make_toy_course(tmp_path / "course")
    (root / "autograder-tests" / "hidden" / "test_double.py").write_text(
        textwrap.dedent(HIDDEN_TESTS["test_double.py"]) + SETUP_FAILS_ONCE_USED, encoding="utf-8"
    )
    (tmp_path / "wrong.py").write_text(wrong_source(), encoding="utf-8")
    (tmp_path / "right.py").write_text(solution_source(), encoding="utf-8")
    # One `grader grade` session for both, in a process of its own: test modules stay imported for
    # the process (importlib mode), and this changed test_double.py must not stand in for the toy
    # course's in the tests that run after this one.
    proc = run_grader(
        "grade",
        "--json",
        "--course",
        str(root),
        "--only",
        "double",
        "--no-sandbox",
        str(tmp_path / "wrong.py"),
        str(tmp_path / "right.py"),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    wrong, right = (json.loads(line)["functions"]["double"] for line in proc.stdout.splitlines() if line.strip())
    assert not [t for t in wrong["tests"] if t["passed"]]
    [failed] = [t for t in right["tests"] if not t["passed"]]
    assert failed["name"] == "test_double_on_a_range"
    assert right["diagnosis"] is None, right["diagnosis"]  # it had no answer of its own to diagnose


def test_a_submission_graded_again_starts_from_nothing(tmp_path):
    # What the plugin holds of a submission is one SubmissionState: binding the id to another
    # submission replaces all of it (eight parallel maps had to be emptied one by one).
    course = load_course(make_toy_course(tmp_path / "course"))
    plugin = GradingPlugin(course, {"s": tmp_path / "a"}, only_for={"s": ["double"]})
    plugin.open_submission("s")
    plugin.record("s", "double", TestOutcome("t", False, 1.0, "wrong", "property"), [Call((np.zeros(2),), {}, 1.0)])
    plugin.close_submission("s")
    assert plugin.states["s"].result is not None
    plugin.reset("s", tmp_path / "b")
    state = plugin.states["s"]
    assert (state.path, state.only, state.outcomes, state.evidence, state.result) == (
        Path(tmp_path / "b"),
        None,
        {},
        {},
        None,
    )
    assert plugin.functions_of("s") == list(course.functions)
