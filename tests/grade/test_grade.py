"""`grader grade` and `grader check` end to end, through the real command line."""

from __future__ import annotations

import json
import shutil
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from grader.core.course import load_course
from tests.helpers import ROOT, grade_json, run_grader

COURSE = load_course(ROOT, check_tests=False)


@pytest.fixture(scope="module")
def reference_and_stub_grades():
    return grade_json(COURSE.solutions_dir, COURSE.exercises_dir)


def test_reference_earns_full_marks_on_every_function(reference_and_stub_grades):
    result = reference_and_stub_grades[0]
    assert set(result["functions"]) == set(COURSE.functions)
    assert result["max"] > 0 and result["total"] == result["max"]
    for name, f in result["functions"].items():
        assert f["error"] is None and f["tests"], name
        assert all(t["passed"] for t in f["tests"]), (name, [t for t in f["tests"] if not t["passed"]])


def test_stubs_earn_zero_on_every_function(reference_and_stub_grades):
    result = reference_and_stub_grades[1]
    assert result["total"] == 0
    for name, f in result["functions"].items():
        assert f["score"] == 0, name
        assert not any(t["passed"] for t in f["tests"]), name


def test_json_has_the_documented_shape(reference_and_stub_grades):
    result = reference_and_stub_grades[1]
    assert set(result) == {"submission", "total", "max", "functions"}
    assert isinstance(result["submission"], str)
    for f in result["functions"].values():
        assert set(f) == {"score", "max", "tests", "error", "diagnosis", "mistake", "causes"}
        assert isinstance(f["score"], float) and isinstance(f["max"], float)
        for t in f["tests"]:
            assert set(t) == {"name", "passed", "weight", "message", "kind", "gate"}
            assert isinstance(t["passed"], bool) and isinstance(t["weight"], float)
            assert not t["passed"] and t["message"], "a failed test says why"
            assert "Traceback" not in t["message"]


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


CORRECT_GAE = (ROOT / "solutions" / "gae.py").read_text()


def test_partial_submissions_and_broken_modules(tmp_path):
    only_gae = write(tmp_path / "only_gae" / "gae.py", CORRECT_GAE)
    broken = tmp_path / "broken"
    shutil.copytree(COURSE.solutions_dir, broken)
    write(broken / "ppo_objective.py", "def ppo_clipped_terms(:\n    pass\n")
    single = write(tmp_path / "mywork.py", CORRECT_GAE)
    dashed = write(tmp_path / "my-work.v2.py", CORRECT_GAE)  # no module name: staged under another
    r_only, r_broken, r_single, r_dashed = grade_json(
        only_gae.parent, broken, single, dashed, only=["gae_advantages", "ppo_clipped_terms", "ppo_diagnostics"]
    )

    assert r_only["functions"]["gae_advantages"]["score"] == COURSE.exercise("gae_advantages").points
    assert r_only["functions"]["ppo_clipped_terms"]["error"] == "not defined"
    assert r_only["functions"]["ppo_clipped_terms"]["score"] == 0

    for name in ("ppo_clipped_terms", "ppo_diagnostics"):
        f = r_broken["functions"][name]
        assert f["score"] == 0 and f["error"].startswith("could not import ppo_objective.py: SyntaxError")
        assert "line 1" in f["tests"][0]["message"]
    assert r_broken["functions"]["gae_advantages"]["score"] == COURSE.exercise("gae_advantages").points

    assert r_single["submission"].endswith("mywork.py")
    assert r_single["functions"]["gae_advantages"]["score"] == COURSE.exercise("gae_advantages").points
    assert r_single["functions"]["ppo_clipped_terms"]["error"] == "not defined"
    assert r_dashed["functions"]["gae_advantages"]["score"] == COURSE.exercise("gae_advantages").points


HONEST_ZEROS = """
    import numpy as np

    def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
        return np.zeros(len(rewards))
    """


def test_cheats_earn_nothing(tmp_path):
    """Patching numpy's comparisons or reading the caller's frame happens in the worker only.

    Each cheat wraps the same wrong answer (zeros); it must earn exactly what that
    wrong answer earns honestly (the 'does not modify inputs' check, say), nothing more.
    """
    honest = tmp_path / "honest"
    shutil.copytree(COURSE.exercises_dir, honest)
    write(honest / "gae.py", HONEST_ZEROS)
    patched = tmp_path / "patched"
    shutil.copytree(COURSE.exercises_dir, patched)
    write(
        patched / "gae.py",
        """
        import numpy as np
        import numpy.testing
        np.allclose = lambda *a, **k: True
        np.testing.assert_allclose = lambda *a, **k: None
        numpy.array_equal = lambda *a, **k: True

        def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
            return np.zeros(len(rewards))
        """,
    )
    frame = tmp_path / "frame"
    shutil.copytree(COURSE.exercises_dir, frame)
    write(
        frame / "gae.py",
        """
        import sys
        import numpy as np

        def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
            # Look for expected values in the callers' frames: there are none in this process.
            f = sys._getframe(1)
            while f is not None:
                for name in ("expected", "want", "case", "reference"):
                    if name in f.f_locals:
                        return f.f_locals[name]
                f = f.f_back
            return np.zeros(len(rewards))
        """,
    )
    r_honest, r_patched, r_frame = grade_json(honest, patched, frame, only=["gae_advantages"])
    baseline = r_honest["functions"]["gae_advantages"]
    assert baseline["score"] < 0.2 * baseline["max"]
    passed_honestly = {t["name"] for t in baseline["tests"] if t["passed"]}
    for result in (r_patched, r_frame):
        gae = result["functions"]["gae_advantages"]
        assert gae["score"] == baseline["score"]
        assert {t["name"] for t in gae["tests"] if t["passed"]} == passed_honestly


def small_limits_course(tmp_path: Path, limit: float) -> Path:
    """A copy of the course whose gae_advantages has a short time limit."""
    course = tmp_path / "course"
    for name in ("solutions", "exercises", "autograder-tests"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    data = yaml.safe_load((ROOT / "course.yaml").read_text())
    for a in data["assignments"]:
        for e in a["exercises"]:
            if e["function"] == "gae_advantages":
                e["time_limit"] = limit
    (course / "course.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return course


def test_endless_loop_and_crash_cost_one_function_each(tmp_path):
    course = small_limits_course(tmp_path, limit=2)
    looping = tmp_path / "looping"
    shutil.copytree(COURSE.solutions_dir, looping)
    with open(looping / "gae.py", "a") as out:
        out.write("\n\ndef gae_advantages(*args, **kwargs):\n    while True:\n        pass\n")
    crashing = tmp_path / "crashing"
    shutil.copytree(COURSE.solutions_dir, crashing)
    with open(crashing / "ppo_objective.py", "a") as out:
        out.write("\n\ndef ppo_clipped_terms(*args, **kwargs):\n    import os\n    os._exit(0)\n")
    started = time.monotonic()
    proc = run_grader(
        "grade",
        "--course",
        str(course),
        "--json",
        str(looping),
        str(crashing),
        "--only",
        "gae_advantages",
        "--only",
        "ppo_clipped_terms",
        "--only",
        "ppo_diagnostics",
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    loop_result, crash_result = [json.loads(line) for line in proc.stdout.splitlines()]

    gae = loop_result["functions"]["gae_advantages"]
    assert gae["score"] == 0 and gae["error"] == "time limit exceeded (2 s)"
    assert loop_result["functions"]["ppo_clipped_terms"]["score"] == COURSE.exercise("ppo_clipped_terms").points
    # One time limit, not one per test: the function is abandoned after the first.
    assert elapsed < 2 + 30, elapsed

    clipped = crash_result["functions"]["ppo_clipped_terms"]
    assert clipped["score"] == 0 and clipped["error"] == "crashed the grading process"
    assert crash_result["functions"]["gae_advantages"]["score"] == COURSE.exercise("gae_advantages").points


def test_exit_at_import_and_odd_returns(tmp_path):
    exiting = tmp_path / "exiting"
    shutil.copytree(COURSE.solutions_dir, exiting)
    text = (exiting / "gae.py").read_text()
    (exiting / "gae.py").write_text("import sys\nsys.exit(0)\n" + text)
    odd = tmp_path / "odd"
    shutil.copytree(COURSE.solutions_dir, odd)
    with open(odd / "gae.py", "a") as out:
        out.write("\n\ndef gae_advantages(*args, **kwargs):\n    return object()\n")
    r_exit, r_odd = grade_json(exiting, odd, only=["gae_advantages", "ppo_clipped_terms"])
    assert r_exit["functions"]["gae_advantages"]["score"] == 0
    assert "exits on import" in r_exit["functions"]["gae_advantages"]["error"]
    assert r_exit["functions"]["ppo_clipped_terms"]["score"] == COURSE.exercise("ppo_clipped_terms").points
    messages = {t["message"] for t in r_odd["functions"]["gae_advantages"]["tests"]}
    assert any("returned unsupported type object" in m for m in messages), messages


def test_bad_paths_are_clear_errors(tmp_path):
    proc = run_grader("grade", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "submission not found" in proc.stderr
    notes = write(tmp_path / "notes.txt", "hello")
    proc = run_grader("grade", str(notes))
    assert proc.returncode == 2 and "one .py file" in proc.stderr
    proc = run_grader("grade", "--only", "no_such_function", str(COURSE.solutions_dir))
    assert proc.returncode == 2 and "not a function of this course" in proc.stderr


def test_human_output_is_a_table_with_a_total():
    proc = run_grader("grade", str(COURSE.exercises_dir), "--only", "gae_advantages")
    assert proc.returncode == 0, proc.stderr
    assert "gae_advantages" in proc.stdout and "total" in proc.stdout and "not implemented" in proc.stdout


def test_check_reports_visible_tests_only():
    ok = run_grader("check", str(COURSE.solutions_dir))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "visible tests passed; hidden tests will also be run" in ok.stdout
    assert "all tests passed" not in ok.stdout.lower()
    stub = run_grader("check", "--only", "gae_advantages")  # default: the course's exercises/
    assert stub.returncode == 1
    assert "gae_advantages" in stub.stdout and "not implemented yet" in stub.stdout


@pytest.mark.parametrize("command", ["", "grade", "check", "stubs"])
def test_every_command_has_help(command):
    proc = run_grader(*([command] if command else []), "--help")
    assert proc.returncode == 0 and "usage:" in proc.stdout and len(proc.stdout) > 200


def test_demo_grades_the_sample_class(tmp_path):
    """The README's first command: alice full marks, bob zero, carol in between, and a report."""
    proc = run_grader("demo", "--skip-build", "--out", str(tmp_path / "demo"), timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = {
        s: json.loads((tmp_path / "demo" / "results" / "results" / f"{s}.json").read_text())["result"]
        for s in ("alice", "bob", "carol")
    }
    assert results["alice"]["total"] == results["alice"]["max"] > 0
    assert results["bob"]["total"] == 0
    assert 0 < results["carol"]["total"] < results["carol"]["max"]
    carol = results["carol"]["functions"]
    assert carol["gae_advantages"]["score"] < carol["gae_advantages"]["max"]
    assert "carol: what to look at" in proc.stdout and "gae_advantages" in proc.stdout
    assert (tmp_path / "demo" / "results" / "report.html").is_file()


def test_broken_hidden_tests_stop_the_grader_not_the_student(tmp_path):
    """A course bug (a hidden test file that does not import) is the grader's error, exit 2."""
    course = small_limits_course(tmp_path, limit=5)
    with open(course / "autograder-tests" / "hidden" / "test_gae_advantages.py", "a") as out:
        out.write("\ndef broken(:\n")
    proc = run_grader("grade", "--course", str(course), "--json", str(course / "solutions"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "hidden tests could not be collected" in proc.stderr and "test_gae_advantages.py" in proc.stderr


def test_staging_never_follows_symbolic_links(tmp_path):
    """A link to a file the student may not read (the solutions) is not copied to the worker."""
    from grader.core.staging import stage_submission
    from grader.errors import GraderError

    submission = tmp_path / "sneaky"
    shutil.copytree(COURSE.exercises_dir, submission)
    (submission / "gae.py").unlink()
    (submission / "gae.py").symlink_to(COURSE.solutions_dir / "gae.py")
    (submission / "loot").symlink_to(COURSE.solutions_dir, target_is_directory=True)
    staged = stage_submission(COURSE, submission, tmp_path / "staged")
    assert not (staged / "gae.py").exists() and not (staged / "loot").exists()
    assert (staged / "ppo_objective.py").read_text() == (COURSE.exercises_dir / "ppo_objective.py").read_text()
    link = tmp_path / "link.py"
    link.symlink_to(COURSE.solutions_dir / "gae.py")
    with pytest.raises(GraderError, match="symbolic link"):
        stage_submission(COURSE, link, tmp_path / "staged-link")


WORKER_WONT_START = """
import sys
from pathlib import Path
from grader.core.course import load_course
from grader.errors import GraderError
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.worker.client import LocalLauncher, WorkerStartError

class Broken(LocalLauncher):
    def spawn(self, submission):
        raise GraderError("the zygote is gone")

course = load_course(sys.argv[1])
try:
    grade_here(course, [Parcel.read("alice", course.solutions_dir)], only=["gae_advantages"], launcher=Broken(),
               on_record=lambda parcel, record: print("GRADED", parcel.student, record.total))
except WorkerStartError as exc:
    print("REFUSED", exc)
"""


def test_a_worker_that_cannot_start_is_never_a_grade_of_zero():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", WORKER_WONT_START, str(ROOT)], capture_output=True, text=True, timeout=300
    )
    assert "GRADED" not in proc.stdout, proc.stdout
    assert "REFUSED could not start a worker: the zygote is gone" in proc.stdout, proc.stdout + proc.stderr


def test_a_value_read_again_with_no_student_code_run_in_between_does_not_cross_again(tmp_path):
    # Per-part concept checks read one answer once per part: a second read is answered from the
    # first reply (decoded afresh: the hidden test may change what it got); student code run in
    # between (an import, a call) makes the next read cross again.
    import numpy as np

    from grader.core.submission import Submission
    from tests.helpers import build_submission

    course = load_course(ROOT, check_tests=False)
    answer = next(e.function for e in course.exercises if e.kind == "answer")
    submission = Submission(build_submission(tmp_path / "student"), course)
    sent = []
    try:
        first = submission.get(answer)
        worker = submission.worker
        request = worker.request
        worker.request = lambda message, timeout: sent.append(message["op"]) or request(message, timeout)
        second = submission.get(answer)
        assert sent == [] and second == first
        if isinstance(first, (list, dict, set)):
            assert second is not first
        submission.call("stable_softmax", (np.array([0.5, -1.0, 2.0]),), {})
        assert submission.get(answer) == first
        assert sent == ["import", "call", "get"], sent
        submission.get(answer)
        assert sent == ["import", "call", "get"], sent
    finally:
        submission.close()
