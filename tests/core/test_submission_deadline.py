"""The trusted side's time on one submission is bounded (issue 22, item 3: the per-submission watchdog).

Each exercise's time limit bounds what its calls cost, reading the replies included; what is charged
to no exercise (imports and re-imports after a lost worker, the tests' own checks, the diagnosis) is
bounded by a deadline per submission (course.yaml ``sandbox.submission_seconds``, else from the time
limits). Its expiry costs that submission only, with a clear message.
"""

from __future__ import annotations

import json

from grader.core.course import load_course
from grader.core.submission import submission_deadline
from tests.classgrade.test_grade_class import run_class
from tests.toy_course import make_toy_course, solution_source

# Each import takes 2.5 s, under the import's time limit of 3 s and charged to no exercise.
SLOW = "import time\ntime.sleep(2.5)\n" + solution_source()


def test_a_submission_past_its_deadline_ends_with_a_clear_result_and_costs_no_one_else(tmp_path):
    course = make_toy_course(tmp_path / "course")
    text = (course / "course.yaml").read_text().replace("output_kb: 8", "output_kb: 8\n  submission_seconds: 2")
    (course / "course.yaml").write_text(text)
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "slow.py").write_text(SLOW)
    out = tmp_path / "out"
    proc = run_class(course, submissions, out, "-j", "1")
    assert proc.returncode == 0, proc.stderr
    alice = json.loads((out / "results" / "alice.json").read_text())
    assert alice["result"]["total"] == 4.0
    slow = json.loads((out / "results" / "slow.json").read_text())
    errors = {name: f["error"] for name, f in slow["result"]["functions"].items()}
    assert slow["result"]["total"] < 4.0, slow["result"]
    assert "grading took more than 2 s" in errors["scale"], errors
    assert any(e["kind"] == "submission deadline" for e in slow["limits"]), slow["limits"]
    messages = [t["message"] for f in slow["result"]["functions"].values() for t in f["tests"]]
    assert any("grading this submission took more than 2 s in all" in m for m in messages), messages


def test_the_default_deadline_follows_the_time_limits(tmp_path):
    course = load_course(make_toy_course(tmp_path / "course"))
    # 3 exercises and 2 modules at 3 s: 3 x (9 + 6) + 120.
    assert submission_deadline(course) == 165.0
