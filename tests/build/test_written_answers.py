"""Optional written answers (issue 19, item 11): course.yaml turns written questions of
autograder-tests/written.yaml into nbgrader manually graded answer cells with a rubric for graders.

Real nbgrader and its SQLite gradebook, on the toy course (a1: double 2 points and add 1).
"""

from __future__ import annotations

import csv
import subprocess
import sys

import nbformat
import pytest

from grader.build.leaks import check_leaks
from grader.core.course import load_course
from grader.notebooks.gradebook import course_gradebook
from tests.helpers import run_grader
from tests.toy_course import a1_notebook, make_toy_course

pytestmark = pytest.mark.slow

WRITTEN = """\
why_double:
  title: Why twice
  question: |
    Why does doubling a float array keep its shape?
  rubric:
    - criterion: Says numpy multiplies element by element, so the result has the input's shape.
      share: 3
    - criterion: Mentions that broadcasting a scalar against an array never adds an axis to it.
      share: 1
unused_question:
  title: Not asked
  question: Not asked by any assignment.
  rubric:
    - {criterion: This rubric belongs to a question no assignment asks., share: 1}
"""
RUBRIC_LINE = "Says numpy multiplies element by element, so the result has the input's shape."


def written_course(root, points: str = "4"):
    course = make_toy_course(root / "course")
    (course / "autograder-tests" / "written.yaml").write_text(WRITTEN)
    yaml = course / "course.yaml"
    yaml.write_text(
        yaml.read_text().replace(
            "      - {function: add, module: toy, points: 1, visible: false}\n",
            "      - {function: add, module: toy, points: 1, visible: false}\n"
            f"    written:\n      - {{question: why_double, points: {points}}}\n",
            1,
        )
    )
    return course


def build(course, built, *extra):
    proc = run_grader(
        "build", "--course", str(course), "--course-dir", str(built), "--assignment", "a1", *extra, cwd=built.parent
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("written")
    course = written_course(root)
    build(course, root / "built")
    return course, root / "built"


def cells_by_id(path) -> dict:
    nb = nbformat.read(path, as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


def test_a_written_question_is_a_manually_graded_answer_cell_with_its_points(built):
    from nbgrader.api import Gradebook

    course, course_dir = built
    source = cells_by_id(course_dir / "source/a1/a1.ipynb")["written_why_double"]
    assert source.cell_type == "markdown"
    meta = source.metadata["nbgrader"]
    assert (meta["solution"], meta["grade"], meta["locked"], meta["points"]) == (True, True, False, 4.0)
    assert RUBRIC_LINE in source.source and "(3 pt)" in source.source  # share 3 of 4 -> 3 of 4 points
    released = cells_by_id(course_dir / "release/a1/a1.ipynb")
    assert "Says numpy" not in released["written_why_double"].source  # nbgrader's answer stub instead
    assert "Why does doubling a float array keep its shape?" in released["context_written_why_double"].source
    with Gradebook(course_gradebook(course_dir).url, "toy") as gb:
        cell = gb.find_grade_cell("written_why_double", "a1", "a1")
        assert (cell.max_score, cell.cell_type) == (4.0, "markdown")
        assert gb.find_notebook("a1", "a1").max_score == 7.0  # 2 + 1 autograded, 4 by hand
    rubric = (course_dir / "rubrics/a1.md").read_text()
    assert RUBRIC_LINE in rubric and "not asked" not in rubric.lower()
    assert not (course_dir / "release/a1/rubrics").exists()
    # the leak check passed in the build; it does look for the rubric in what students receive
    assert check_leaks(load_course(course), course_dir) == []
    leaked = course_dir / "release/a1/notes.md"
    leaked.write_text(f"Hints\n- (3 pt) {RUBRIC_LINE}\n")
    try:
        found = check_leaks(load_course(course), course_dir)
    finally:
        leaked.unlink()
    assert [leak.kind for leak in found] == ["solution line"], found


def test_a_manual_grade_of_a_written_answer_reaches_the_exports(built, tmp_path):
    """Autograde keeps the answer for a person (no automatic score), a grade given through nbgrader's
    gradebook API counts in `nbgrader export` and `grader export --lms csv`, and the next autograde
    keeps it."""
    import shutil

    from nbgrader.api import Gradebook

    from grader.build.nbgrader_run import nbgrader_env

    course, course_dir = tmp_path / "course", tmp_path / "nb"
    shutil.copytree(built[0], course)
    shutil.copytree(built[1], course_dir)
    nb = nbformat.reads(a1_notebook(course_dir), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "written_why_double":
            cell.source = "Multiplication is elementwise, so the shape stays."
    folder = course_dir / "submitted/alice/a1"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "a1.ipynb")
    args = ["--course", str(course), "--course-dir", str(course_dir)]
    proc = run_grader("autograde", "a1", *args, "--no-sandbox", "--jobs", "1", cwd=tmp_path, env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "alice │ 3/7 (to grade by hand: written_why_double)" in " ".join(proc.stdout.split()), proc.stdout
    url = course_gradebook(course_dir).url
    with Gradebook(url, "toy") as gb:
        grade = gb.find_grade("written_why_double", "a1", "a1", "alice")
        assert grade.auto_score is None and grade.needs_manual_grade
        assert grade.cell.cell_type == "markdown"
        grade.manual_score = 2.5  # what a grader gives in formgrader
        gb.db.commit()
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export"],
        cwd=course_dir,
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with open(course_dir / "grades.csv", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["student_id"] == "alice")
    assert (float(row["score"]), float(row["max_score"])) == (5.5, 7.0)
    out = tmp_path / "grades.csv"
    proc = run_grader("export", "--lms", "csv", "-o", str(out), "--assignment", "a1", *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = list(csv.reader(out.open(newline="")))
    assert rows[0][-2:] == ["a1", "total"] and rows[1][0] == "alice" and float(rows[1][-2]) == 5.5, rows
    proc = run_grader("autograde", "a1", *args, "--no-sandbox", "--jobs", "1", cwd=tmp_path, env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "alice │ 5.50/7 (manual: written_why_double; autograded 3)" in " ".join(proc.stdout.split()), proc.stdout
    with Gradebook(url, "toy") as gb:
        assert gb.find_grade("written_why_double", "a1", "a1", "alice").manual_score == 2.5


def test_written_answers_are_off_by_default_and_a_wrong_question_is_named(tmp_path):
    course = make_toy_course(tmp_path / "plain")
    assert all(a.written == () for a in load_course(course).assignments)
    bad = written_course(tmp_path / "bad")
    yaml = bad / "course.yaml"
    yaml.write_text(yaml.read_text().replace("question: why_double", "question: why_tripple"))
    proc = run_grader("build", "--course", str(bad), "--course-dir", str(tmp_path / "b"), cwd=tmp_path)
    assert proc.returncode != 0
    assert (
        "no question 'why_tripple' in autograder-tests/written.yaml (it has: why_double, unused_question)"
        in " ".join(proc.stderr.split())
    ), proc.stderr
    yaml.write_text(yaml.read_text().replace("question: why_tripple, points: 4", "question: why_double, points: 0"))
    proc = run_grader("build", "--course", str(bad), "--course-dir", str(tmp_path / "b"), cwd=tmp_path)
    assert proc.returncode != 0 and "written[0].points: must be positive" in proc.stderr, proc.stderr


def test_the_points_of_a_written_answer_changed_after_the_build_are_refused_until_rebuilt(built, tmp_path):
    import shutil

    course, course_dir = tmp_path / "course", tmp_path / "nb"
    shutil.copytree(built[0], course)
    shutil.copytree(built[1], course_dir)
    folder = course_dir / "submitted/alice/a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").write_text(a1_notebook(course_dir))
    yaml = course / "course.yaml"
    yaml.write_text(yaml.read_text().replace("question: why_double, points: 4", "question: why_double, points: 5"))
    proc = run_grader(
        "autograde", "a1", "--course", str(course), "--course-dir", str(course_dir), "--no-sandbox", cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "(written_why_double: 4 -> 5)" in " ".join(proc.stderr.split())
