"""The whole nbgrader cycle with real nbgrader: build, release, a class, autograde, feedback, export.

One class of students hands in ps4b: the reference solution, the untouched stub,
a partly wrong answer, a syntax error, a renamed function, a cell that warns, two
cheats that fool plain nbgrader (monkeypatching numpy's asserts; an IPython input
transformer that blanks the test cells), a notebook that is not JSON, deleted
cells, and two attempts to rewrite the gradebook from a detached process. Two of
the notebooks arrive as an LMS download (a zip collected by nbgrader zip_collect).
Every exported grade must equal what `grader grade` gives for the same code.
"""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.build.leaks import course_secrets, feedback_leaks
from grader.build.nbgrader_run import nbgrader_env
from grader.core.course import load_course
from grader.notebooks.segments import course_modules
from tests.helpers import ROOT, grade_json, run_grader

pytestmark = pytest.mark.slow

COURSE = load_course(ROOT, check_files=False)
ASSIGNMENT = COURSE.assignment("ps4b")
FUNCTIONS = [e.function for e in ASSIGNMENT.exercises]
MODULE_OF = {e.function: e.module for e in ASSIGNMENT.exercises}
POINTS = {e.function: e.points for e in ASSIGNMENT.exercises}
SOLUTION = {f: t for parts in course_modules(COURSE, set(FUNCTIONS)).values() for f, t in parts.exercises.items()}
# A function only earns points where hidden tests exist (all of them, once the course is complete).
TESTED = [f for f in FUNCTIONS if COURSE.hidden_test_file(f).is_file() and COURSE.hidden_test_file(f).stat().st_size]
FULL = sum(POINTS[f] for f in TESTED)

ZEROS = """\
def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    return np.zeros(len(rewards))
"""
MONKEYPATCH = (
    """\
import numpy
import numpy.testing
# Plain nbgrader runs the tests in this kernel: with these, every assertion passes.
numpy.testing.assert_allclose = lambda *args, **kwargs: None
numpy.allclose = lambda *args, **kwargs: True
numpy.isclose = lambda *args, **kwargs: True
"""
    + ZEROS
)
TRANSFORMER = (
    """\
# Plain nbgrader runs every later cell through this transformer: the test cells become `pass`.
get_ipython().input_transformers_post.append(
    lambda lines: ["pass\\n"] if any("run_visible_tests" in line or "assert" in line for line in lines) else lines)
"""
    + ZEROS
)
WARNS = """\
import warnings
warnings.warn("a harmless warning on stderr, at import")
""" + SOLUTION["gae_advantages"].replace(
    "    ### BEGIN SOLUTION\n", "    ### BEGIN SOLUTION\n    warnings.warn('and one on every call')\n"
)


def tamper(delay: float, db: Path, marker: Path) -> str:
    """A cell that leaves a detached process behind, which rewrites every grade after ``delay`` s."""
    child = (
        f"import sqlite3, time; time.sleep({delay}); "
        f"open({str(marker)!r}, 'a').write('acted'); "
        f"db = sqlite3.connect({str(db)!r}); db.execute('update grade set manual_score = 99'); db.commit()"
    )
    return (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True,\n"
        "                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        + SOLUTION["gae_advantages"]
    )


def students(course_dir: Path) -> dict[str, dict]:
    """student -> {"cells": {function: source}, "deleted": [...], "raw": text or None}."""
    correct = dict(SOLUTION)
    db = course_dir / "gradebook.db"
    mutant = (ROOT / "autograder-tests/mistakes/gae_advantages/ignores_lambda.py").read_text()
    return {
        "correct": {"cells": correct},
        "stub": {"cells": {}},
        "partly_wrong": {"cells": dict(correct, gae_advantages=mutant.split('"""', 2)[2].strip() + "\n")},
        "syntax_error": {
            "cells": dict(
                correct, gae_advantages=SOLUTION["gae_advantages"].replace("running = 0.0", "running = = 0.0")
            )
        },
        "renamed": {
            "cells": dict(
                correct, gae_advantages=SOLUTION["gae_advantages"].replace("def gae_advantages(", "def gae_advantage(")
            )
        },
        "warns": {"cells": dict(correct, gae_advantages=WARNS)},
        "monkeypatch_cheat": {"cells": dict(correct, gae_advantages=MONKEYPATCH)},
        "transformer_cheat": {"cells": dict(correct, gae_advantages=TRANSFORMER)},
        "broken_json": {"cells": {}, "raw": '{"cells": [ {"cell_type": "code", '},
        "deleted_cells": {"cells": correct, "deleted": ["ppo_diagnostics", "test_ppo_diagnostics"]},
        "tamper_now": {"cells": dict(correct, gae_advantages=tamper(0, db, course_dir / "acted_now"))},
        "tamper_later": {"cells": dict(correct, gae_advantages=tamper(6, db, course_dir / "acted_later"))},
    }


def student_notebook(release: nbformat.NotebookNode, spec: dict) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    kept = []
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in spec.get("deleted", []):
            continue
        if grade_id in spec["cells"] and cell.metadata["nbgrader"].get("solution"):
            cell.source = spec["cells"][grade_id]
        kept.append(cell)
    nb.cells = kept
    return nb


def same_code(spec: dict, dest: Path) -> Path:
    """The student's code as `grader grade` takes it: each cell appended to the stub module."""
    dest.mkdir(parents=True)
    for module in {MODULE_OF[f] for f in FUNCTIONS}:
        text = (COURSE.exercises_dir / f"{module}.py").read_text()
        if spec.get("raw") is None:
            for function in FUNCTIONS:
                if (
                    MODULE_OF[function] == module
                    and function in spec["cells"]
                    and function not in spec.get("deleted", [])
                ):
                    text += "\n\n" + spec["cells"][function]
        (dest / f"{module}.py").write_text(text)
    return dest


def nbgrader(course_dir: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=nbgrader_env(),
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    course_dir = tmp_path_factory.mktemp("nbgrader") / "course"
    proc = run_grader("build", "--course-dir", str(course_dir), "--assignment", "ps4b")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (course_dir / "release/ps4b/ps4b.ipynb").is_file()
    return course_dir


@pytest.fixture(scope="module")
def graded(built, tmp_path_factory):
    """The class handed in, autograded, with feedback and the CSV export."""
    course_dir = built
    release = nbformat.read(course_dir / "release/ps4b/ps4b.ipynb", as_version=4)
    specs = students(course_dir)
    lms = tmp_path_factory.mktemp("lms") / "ps4b_download.zip"
    with zipfile.ZipFile(lms, "w") as archive:
        for student, spec in specs.items():
            text = spec.get("raw") or nbformat.writes(student_notebook(release, spec))
            if student in ("correct", "warns"):  # these two come from the LMS download
                archive.writestr(f"{student}_ps4b (1).ipynb", text)
            else:
                folder = course_dir / "submitted" / student / "ps4b"
                folder.mkdir(parents=True)
                (folder / "ps4b.ipynb").write_text(text)
    started = time.monotonic()
    proc = run_grader("autograde", "ps4b", "--course-dir", str(course_dir), "--zip", str(lms), "--details")
    autograde_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    feedback = nbgrader(course_dir, "generate_feedback", "ps4b", "--force")
    assert feedback.returncode == 0, feedback.stdout + feedback.stderr
    export = nbgrader(course_dir, "export")
    assert export.returncode == 0, export.stdout + export.stderr
    with open(course_dir / "grades.csv", newline="") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle) if r["assignment"] == "ps4b"}
    return {
        "dir": course_dir,
        "specs": specs,
        "log": proc.stdout + proc.stderr,
        "csv": rows,
        "seconds": autograde_seconds,
        "stderr": {"autograde": proc.stderr, "generate_feedback": feedback.stderr, "export": export.stderr},
    }


def warnings_in(text: str) -> list[str]:
    """Lines of a command's stderr that warn (Python's warnings, nbgrader's and traitlets' log)."""
    return [line for line in text.splitlines() if "Warning" in line or "WARNING" in line]


def test_every_student_is_graded_and_exported(graded):
    assert sorted(graded["csv"]) == sorted(graded["specs"]), graded["log"]
    for student, row in graded["csv"].items():
        assert float(row["max_score"]) == sum(POINTS.values())


def test_a_normal_cycle_prints_no_warning(graded):
    """Warnings people learn to ignore hide the ones that matter: autograde (new submissions),
    generate_feedback and export print none for this class, hostile students included."""
    for step, stderr in graded["stderr"].items():
        assert warnings_in(stderr) == [], (step, stderr)


def test_exported_grades_equal_grader_grade_on_the_same_code(graded, tmp_path):
    # `grader grade` has no reason to expect tampering: aim the detached children elsewhere.
    specs = dict(graded["specs"], **students(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    specs = {s: specs[s] for s in graded["specs"]}
    dirs = [same_code(specs[s], tmp_path / s) for s in specs]
    # The cheat's function without the monkeypatch: patching numpy must buy exactly nothing.
    honest = same_code({"cells": dict(specs["monkeypatch_cheat"]["cells"], gae_advantages=ZEROS)}, tmp_path / "honest")
    *results, honest_result = grade_json(*dirs, honest, only=FUNCTIONS)
    for student, result in zip(specs, results):
        exported = float(graded["csv"][student]["score"])
        assert exported == pytest.approx(result["total"], abs=1e-6), (student, result, graded["log"])
    assert float(graded["csv"]["monkeypatch_cheat"]["score"]) == pytest.approx(honest_result["total"], abs=1e-6)


def test_expected_scores(graded):
    score = {s: float(r["score"]) for s, r in graded["csv"].items()}
    gae = POINTS["gae_advantages"] if "gae_advantages" in TESTED else 0
    assert score["correct"] == FULL
    assert score["warns"] == FULL, "a warning on stderr must cost nothing"
    assert score["stub"] == 0
    assert score["broken_json"] == 0
    assert 0 < score["partly_wrong"] < FULL
    for student in ("syntax_error", "renamed", "transformer_cheat"):
        assert score[student] == FULL - gae, f"{student}: only gae_advantages is lost"
    # Monkeypatching the asserts buys nothing: the function is graded as what it is.
    assert score["monkeypatch_cheat"] <= FULL - gae + 0.25 * gae
    assert score["deleted_cells"] == FULL - (POINTS["ppo_diagnostics"] if "ppo_diagnostics" in TESTED else 0)


def test_detached_processes_cannot_change_grades(graded):
    course_dir = graded["dir"]
    time.sleep(max(0.0, 8 - graded["seconds"]))  # past the delayed child's moment to act
    assert not (course_dir / "acted_later").exists(), "a detached child outlived grading"
    db = sqlite3.connect(course_dir / "gradebook.db")
    assert db.execute("select count(*) from grade where manual_score is not null").fetchone()[0] == 0
    assert float(graded["csv"]["tamper_now"]["score"]) == FULL
    if (course_dir / "acted_now").exists():  # no sandbox: it acted during grading, and was undone
        assert "tampering undone" in graded["log"]


def test_feedback_has_messages_and_no_hidden_tests(graded):
    course_dir = graded["dir"]
    # The leak check of feedback/ (the student's own code is theirs to see, even where a line
    # looks like one of a test helper).
    leaks = feedback_leaks(course_dir, course_secrets(COURSE))
    assert not leaks, leaks[:3]
    proc = run_grader("leak-check", "--course-dir", str(course_dir))
    assert proc.returncode == 0 and "feedback/" in proc.stdout, proc.stdout + proc.stderr
    for student in graded["specs"]:
        html = course_dir / "feedback" / student / "ps4b" / "ps4b.html"
        assert html.is_file(), f"no feedback for {student}"
        text = html.read_text()
        assert "Traceback (most recent call last)" not in text and "BEGIN HIDDEN TESTS" not in text
    partly = (course_dir / "feedback/partly_wrong/ps4b/ps4b.html").read_text()
    assert "ignores gae_lambda" in partly
    assert "is not implemented yet" in (course_dir / "feedback/stub/ps4b/ps4b.html").read_text()
    assert "syntax error" in (course_dir / "feedback/syntax_error/ps4b/ps4b.html").read_text()
    assert "not valid notebook JSON" in (course_dir / "feedback/broken_json/ps4b/ps4b.html").read_text()


def test_rerun_and_plain_nbgrader_autograde_give_the_same_grades(graded):
    course_dir = graded["dir"]
    before = {s: float(r["score"]) for s, r in graded["csv"].items()}
    proc = run_grader(
        "autograde", "ps4b", "--course-dir", str(course_dir), "--student", "partly_wrong", "--student", "warns"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Grading two students again leaves the class whole: its list and summary.csv keep everyone.
    results = course_dir / "grader-results" / "ps4b"
    assert json.loads((results / "class.json").read_text())["students"] == sorted(before)
    with open(results / "summary.csv", newline="") as handle:
        assert sorted(row["student"] for row in csv.DictReader(handle)) == sorted(before)
    # Plain `nbgrader autograde` (e.g. formgrader's button) without a trusted record: TrustedGrade
    # grades the notebook itself, outside nbgrader's process, with the same result.
    (course_dir / "grader-results/ps4b/results/renamed.json").unlink()
    plain = nbgrader(course_dir, "autograde", "ps4b", "--student", "renamed", "--force")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    # Its locked cells are as released: nbgrader's tampering warning would be a false alarm.
    assert "has changed!" not in plain.stderr, plain.stderr
    export = nbgrader(course_dir, "export", "--to", "again.csv")
    assert export.returncode == 0, export.stderr
    with open(course_dir / "again.csv", newline="") as handle:
        after = {r["student_id"]: float(r["score"]) for r in csv.DictReader(handle) if r["assignment"] == "ps4b"}
    assert after == before


def test_release_notebook_runs_top_to_bottom_in_a_fresh_kernel(built):
    from nbclient import NotebookClient

    nb = nbformat.read(built / "release/ps4b/ps4b.ipynb", as_version=4)
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(built / "release/ps4b")}},
    ).execute()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        if meta.get("grade"):
            # Stubs: each check cell fails with a friendly message, not a traceback into the helper.
            assert errors and errors[0].ename == "VisibleChecksFailed"
            assert "is not implemented yet" in text
        else:
            assert not errors, (meta.get("grade_id"), errors)


def test_nbgrader_validate(built, graded):
    release = nbgrader(built, "validate", str(built / "release/ps4b/ps4b.ipynb"))
    assert "VALIDATION FAILED" in release.stdout + release.stderr
    solved = nbgrader(built, "validate", str(built / "submitted/correct/ps4b/ps4b.ipynb"))
    assert "Success! Your notebook passes all the tests." in solved.stdout, solved.stdout + solved.stderr


def test_a_course_directory_moved_elsewhere_reuses_its_grades(graded, tmp_path):
    """Nothing stored names the course directory's path: a copy (a backup restored, a volume mounted
    elsewhere) autogrades again without regrading anyone; --out keeps the records elsewhere."""
    course_dir = graded["dir"]
    moved = tmp_path / "mounted-elsewhere" / "course"
    shutil.copytree(course_dir, moved, symlinks=True)
    records = moved / "grader-results" / "ps4b" / "results"
    before = {p.name: p.read_bytes() for p in records.glob("*.json")}
    assert before and not any(str(course_dir) in text.decode() for text in before.values())
    again = run_grader(
        "autograde", "ps4b", "--course-dir", str(moved), "--student", "partly_wrong", "--student", "correct"
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert {p.name: p.read_bytes() for p in records.glob("*.json")} == before, "nobody regraded"
    out = tmp_path / "records"
    elsewhere = run_grader("autograde", "ps4b", "--course-dir", str(moved), "--student", "correct", "--out", str(out))
    assert elsewhere.returncode == 0, elsewhere.stdout + elsewhere.stderr
    record = json.loads((out / "ps4b" / "results" / "correct.json").read_text())
    assert record["result"]["total"] == FULL and record["submission"] == "correct/ps4b"


def test_autograde_on_a_dask_cluster_records_the_same_grades(graded, tmp_path):
    """`grader autograde --scheduler`: the notebooks' extractions graded by Dask workers that share
    no directory with the course, recorded in the gradebook and equal to the local records."""
    pytest.importorskip("distributed", reason="the cluster extra (distributed) is not installed")
    from tests.engine.dask_cluster import Cluster

    course_dir, cluster = graded["dir"], Cluster(tmp_path / "dask")
    try:
        worker = cluster.add_worker("worker")
        proc = run_grader(
            "autograde",
            "ps4b",
            "--course-dir",
            str(course_dir),
            "--student",
            "partly_wrong",
            "--student",
            "syntax_error",
            "--out",
            str(tmp_path / "records"),
            "--scheduler",
            cluster.address,
            "--insecure",
        )  # the test's own tcp://127.0.0.1
    finally:
        cluster.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for student in ("partly_wrong", "syntax_error"):
        here = json.loads((course_dir / f"grader-results/ps4b/results/{student}.json").read_text())
        there = json.loads((tmp_path / f"records/ps4b/results/{student}.json").read_text())
        assert there["grader"] == worker and there["result"] == here["result"]
        assert float(graded["csv"][student]["score"]) == pytest.approx(there["result"]["total"], abs=1e-6)
