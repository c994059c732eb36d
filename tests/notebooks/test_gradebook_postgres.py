"""A teaching team's gradebook: nbgrader on a real PostgreSQL server the test starts itself.

The course is built with ``grader build --db postgresql://...`` (the URL lands in
nbgrader_config.py), two assignments are autograded at the same time by two
processes into the one database, nbgrader's feedback and export read it, and the
exported grades equal `grader grade` on the same code. A grader's manual score and
comment, entered through nbgrader's API as formgrader enters them, survive a
re-autograde. No SQLite file appears anywhere, and no password reaches the output.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grader.build.nbgrader_run import nbgrader_env
from grader.core.course import load_course
from grader.notebooks.segments import course_modules
from tests.helpers import ROOT, grade_json, mistake_cell, run_grader
from tests.pgserver import PostgresServer, server_bindir

pytestmark = pytest.mark.slow

COURSE = load_course(ROOT, check_files=False)
ASSIGNMENTS = ("ps4b", "ps4c")
SOLUTION = {
    f: t for parts in course_modules(COURSE, set(COURSE.functions)).values() for f, t in parts.exercises.items()
}


def cells(assignment: str, **changed: str) -> dict[str, str]:
    """Every solution cell of ``assignment`` solved, except ``changed`` (None: left as the stub)."""
    out = {e.function: SOLUTION[e.function] for e in COURSE.assignment(assignment).exercises}
    out.update(changed)
    return {f: text for f, text in out.items() if text is not None}


# Two students hand in both assignments: both runs must find them in the gradebook.
CLASS = {
    "ps4b": {
        "ana": cells("ps4b"),
        "ben": cells("ps4b", gae_advantages=mistake_cell("gae_advantages", "ignores_lambda")),
        "cy": {},
    },
    "ps4c": {
        "ana": cells("ps4c"),
        "ben": {},
        "dee": cells("ps4c", response_token_mask=mistake_cell("response_token_mask", "ignores_eos")),
    },
}


def notebook(release: nbformat.NotebookNode, solved: dict[str, str]) -> str:
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in solved:
            cell.source = solved[meta["grade_id"]]
    return nbformat.writes(nb)


def same_code(assignment: str, solved: dict[str, str], dest: Path) -> Path:
    """The student's cells as `grader grade` takes them: appended to the stub modules."""
    dest.mkdir(parents=True)
    exercises = COURSE.assignment(assignment).exercises
    for module in {e.module for e in exercises}:
        text = (COURSE.exercises_dir / f"{module}.py").read_text()
        text += "".join(f"\n\n{solved[e.function]}" for e in exercises if e.module == module and e.function in solved)
        (dest / f"{module}.py").write_text(text)
    return dest


def nbgrader(course_dir: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir,
        capture_output=True,
        text=True,
        timeout=600,
        env=nbgrader_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def exported(course_dir: Path, name: str) -> dict[tuple[str, str], float]:
    nbgrader(course_dir, "export", "--to", name)
    with open(course_dir / name, newline="") as handle:
        return {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def postgres():
    bindir = server_bindir()
    if bindir is None:
        pytest.skip(
            "no PostgreSQL server programs (initdb, pg_ctl, postgres) on this machine: install the "
            "postgresql package (.ci/run does)"
        )
    server = PostgresServer(bindir).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def course(postgres, tmp_path_factory):
    """Built with --db, then both assignments autograded at once, then feedback."""
    url = postgres.create_database("rl_llm_m4")
    course_dir = tmp_path_factory.mktemp("teamcourse") / "course"
    args = ["build", "--course-dir", str(course_dir), "--db", url, "--no-leak-check"]
    build = run_grader(*args, *[a for assignment in ASSIGNMENTS for a in ("--assignment", assignment)])
    assert build.returncode == 0, build.stdout + build.stderr
    for assignment, students in CLASS.items():
        release = nbformat.read(course_dir / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        for student, solved in students.items():
            folder = course_dir / "submitted" / student / assignment
            folder.mkdir(parents=True)
            (folder / f"{assignment}.ipynb").write_text(notebook(release, solved))
    started = time.monotonic()
    runs = {
        assignment: subprocess.Popen(
            [sys.executable, "-m", "grader", "autograde", assignment, "--course-dir", str(course_dir), "--jobs", "1"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for assignment in ASSIGNMENTS
    }
    logs = {assignment: proc.communicate(timeout=600) for assignment, proc in runs.items()}
    seconds = time.monotonic() - started
    for assignment, proc in runs.items():
        assert proc.returncode == 0, logs[assignment]
    for assignment in ASSIGNMENTS:
        nbgrader(course_dir, "generate_feedback", assignment, "--force")
    return {
        "dir": course_dir,
        "url": url,
        "build": build.stdout + build.stderr,
        "logs": logs,
        "seconds": seconds,
        "csv": exported(course_dir, "grades.csv"),
    }


def test_the_configuration_names_postgres_and_no_sqlite_file_appears(course, postgres):
    config = (course["dir"] / "nbgrader_config.py").read_text()
    assert f"c.CourseDirectory.db_url = {course['url']!r}" in config
    assert not list(course["dir"].rglob("*.db")), "a SQLite gradebook appeared next to the PostgreSQL one"
    masked = postgres.url("rl_llm_m4").replace(postgres.password, "***")
    for out, err in course["logs"].values():
        assert f"recorded in the gradebook {masked}" in out.replace("\n", ""), out
        assert postgres.password not in out + err
    assert f"gradebook: {masked}" in course["build"] and postgres.password not in course["build"]


def test_both_assignments_are_exported_with_the_grades_of_grader_grade(course, tmp_path):
    expected_rows = {(a, s) for a, students in CLASS.items() for s in students}
    assert expected_rows <= set(course["csv"]), course["csv"]
    for assignment, students in CLASS.items():
        dirs = [same_code(assignment, solved, tmp_path / assignment / s) for s, solved in students.items()]
        results = grade_json(*dirs, only=[e.function for e in COURSE.assignment(assignment).exercises])
        for student, result in zip(students, results):
            assert course["csv"][(assignment, student)] == pytest.approx(result["total"], abs=1e-6), (
                assignment,
                student,
                result,
            )
    full = {a: sum(e.points for e in COURSE.assignment(a).exercises) for a in ASSIGNMENTS}
    assert course["csv"][("ps4b", "ana")] == full["ps4b"] and course["csv"][("ps4c", "ana")] == full["ps4c"]
    assert 0 < course["csv"][("ps4b", "ben")] < full["ps4b"] and course["csv"][("ps4b", "cy")] == 0


def test_feedback_is_generated_from_the_shared_gradebook(course):
    partly = (course["dir"] / "feedback/ben/ps4b/ps4b.html").read_text()
    assert "ignores gae_lambda" in partly
    assert (course["dir"] / "feedback/dee/ps4c/ps4c.html").is_file()


def test_manual_grades_and_comments_survive_a_reautograde(course):
    from nbgrader.api import Gradebook

    course_dir = course["dir"]
    with Gradebook(course["url"], COURSE.id) as gb:  # what formgrader does when a grader saves
        grade = gb.find_grade("test_gae_advantages", "ps4b", "ps4b", "ben")
        auto_gae = grade.auto_score
        grade.manual_score = 4.0
        comment = gb.find_comment("gae_advantages", "ps4b", "ps4b", "ben")
        comment.manual_comment = "Good start: the recursion needs the lambda."
        gb.db.commit()
    # Both of ben's assignments again, in one command.
    rerun = run_grader(
        "autograde",
        "ps4b",
        "ps4c",
        "--course-dir",
        str(course_dir),
        "--db",
        course["url"],
        "--student",
        "ben",
        "--jobs",
        "1",
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "tampering undone" not in rerun.stdout
    assert "ps4b: 1 submission(s)" in rerun.stdout and "ps4c: 1 submission(s)" in rerun.stdout, rerun.stdout
    with Gradebook(course["url"], COURSE.id) as gb:
        assert gb.find_grade("test_gae_advantages", "ps4b", "ps4b", "ben").manual_score == 4.0
        assert gb.find_comment("gae_advantages", "ps4b", "ps4b", "ben").manual_comment.startswith("Good start")
    after = exported(course_dir, "after.csv")
    assert auto_gae != 4.0
    assert after[("ps4b", "ben")] == pytest.approx(course["csv"][("ps4b", "ben")] - auto_gae + 4.0)
    assert {k: v for k, v in after.items() if k != ("ps4b", "ben")} == {
        k: v for k, v in course["csv"].items() if k != ("ps4b", "ben")
    }
