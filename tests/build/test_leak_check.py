"""The leak check finds solutions, hidden tests and hidden answers in what students receive."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from grader.build.leaks import (
    course_secrets,
    distinctive,
    feedback_leaks,
    fingerprint,
    literal_matches,
    solution_region_lines,
)
from grader.core.course import load_course
from tests.helpers import ROOT, run_grader

COURSE = load_course(ROOT, check_files=False)
SECRETS = course_secrets(COURSE)


def gae_solution_line() -> str:
    lines = solution_region_lines((COURSE.solutions_dir / "gae.py").read_text())
    return max(lines, key=lambda line: len(fingerprint(line)))


def hidden_line() -> str:
    lines = (COURSE.hidden_test_file("gae_advantages")).read_text().splitlines()
    return next(line for line in lines if fingerprint(line) in SECRETS.hidden)


# -- the pieces ---------------------------------------------------------------------------
def test_known_mistakes_are_hidden_like_the_tests():
    # The wrong implementations the grader diagnoses with are course material too.
    lines = (COURSE.tests_dir / "mistakes" / "gae_advantages" / "ignores_lambda.py").read_text().splitlines()
    assert "running = deltas[t] + gamma * (not cuts[t]) * running" in [line.strip() for line in lines]
    assert fingerprint("running = deltas[t] + gamma * (not cuts[t]) * running") in SECRETS.hidden


def test_fingerprint_ignores_layout_comments_and_string_contents():
    assert fingerprint("    x = f(a,  'text')  # note") == fingerprint('#x=f(a, "other")')
    assert fingerprint('"only a message, meant to be shown"') == "S"


def test_solution_and_hidden_lines_are_secrets_but_stubs_are_not():
    assert fingerprint(gae_solution_line()) in SECRETS.solution
    stub = (COURSE.exercises_dir / "gae.py").read_text().splitlines()
    assert not any(fingerprint(line) in SECRETS.solution | SECRETS.hidden for line in stub)


def test_hidden_values_are_distinctive_numbers_nobody_shows():
    values = {v.value: v for v in SECRETS.values}
    assert values[8.2].strong  # the optimal constant baseline of the worked example, its only number
    assert not any(v == round(v) or v * 2 == round(v * 2) for v in values)
    assert distinctive(2.75) and not distinctive(3.5) and not distinctive(4.0)
    assert literal_matches("0.6652", 0.6652409557748218) and not literal_matches("0.7", 0.6652409557748218)


def test_feedback_may_show_the_students_own_code_but_no_hidden_test(tmp_path):
    def notebook(cells: dict[str, str]) -> nbformat.NotebookNode:
        nb = nbformat.v4.new_notebook()
        for grade_id, source in cells.items():
            cell = nbformat.v4.new_code_cell(source)
            cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": True, "grade": False}
            nb.cells.append(cell)
        return nb

    hidden, solution = hidden_line().strip(), gae_solution_line().strip()
    page = f"<html>\n<pre>{solution}</pre>\n<pre>{hidden}</pre>\n<p>b* = 8.2</p>\n</html>"
    for student, cells in {"alice": {"gae_advantages": solution}, "bob": {"gae_advantages": hidden}}.items():
        (tmp_path / "feedback" / student / "ps4b").mkdir(parents=True)
        (tmp_path / "feedback" / student / "ps4b" / "ps4b.html").write_text(page)
        (tmp_path / "autograded" / student / "ps4b").mkdir(parents=True)
        nbformat.write(notebook(cells), tmp_path / "autograded" / student / "ps4b" / "ps4b.ipynb")
    leaks = feedback_leaks(tmp_path, SECRETS)
    found = {(leak.path.split("/")[1], leak.kind) for leak in leaks}
    # A solution or hidden-test line is the student's to see when they wrote it, a leak otherwise.
    assert found == {
        ("alice", "hidden-test code"),
        ("alice", "hidden expected value"),
        ("bob", "solution line"),
        ("bob", "hidden expected value"),
    }, leaks


def test_feedback_made_from_what_nbgrader_read_through_a_link_leaks(tmp_path):
    # Plain nbgrader follows a notebook that links to the instructor's source: its copy in
    # autograded/ is not the student's code, and the feedback made from it is a leak.
    solution = gae_solution_line().strip()
    submitted = tmp_path / "submitted" / "mallory" / "ps4b"
    submitted.mkdir(parents=True)
    (submitted / "ps4b.ipynb").symlink_to(COURSE.solutions_dir / "gae.py")
    graded = tmp_path / "autograded" / "mallory" / "ps4b"
    graded.mkdir(parents=True)
    (graded / "gae.py").write_text((COURSE.solutions_dir / "gae.py").read_text())
    feedback = tmp_path / "feedback" / "mallory" / "ps4b"
    feedback.mkdir(parents=True)
    (feedback / "ps4b.html").write_text(f"<html><pre>{solution}</pre></html>")
    kinds = {(leak.path, leak.kind) for leak in feedback_leaks(tmp_path, SECRETS)}
    assert ("feedback/mallory/ps4b/ps4b.html", "solution line") in kinds
    # The same line handed in as a regular file is the student's own answer.
    (submitted / "ps4b.ipynb").unlink()
    (submitted / "gae.py").write_text((COURSE.solutions_dir / "gae.py").read_text())
    assert not {(leak.path, leak.kind) for leak in feedback_leaks(tmp_path, SECRETS)} & {
        ("feedback/mallory/ps4b/ps4b.html", "solution line")
    }


def test_a_student_file_that_is_a_link_is_reported_and_never_trusted(tmp_path):
    # mallory's "own code" is a link to the hidden tests: trusting it would hide the leak.
    hidden = hidden_line().strip()
    feedback = tmp_path / "feedback" / "mallory" / "lab4"
    feedback.mkdir(parents=True)
    (feedback / "lab4.html").write_text(f"<html><pre>{hidden}</pre></html>")
    graded = tmp_path / "autograded" / "mallory" / "lab4"
    graded.mkdir(parents=True)
    (graded / "gae.py").symlink_to(COURSE.hidden_test_file("gae_advantages"))
    (feedback / "notes.py").symlink_to(COURSE.solutions_dir / "gae.py")
    leaks = feedback_leaks(tmp_path, SECRETS)
    kinds = {(leak.path, leak.kind) for leak in leaks}
    assert ("feedback/mallory/lab4/lab4.html", "hidden-test code") in kinds, leaks
    assert ("autograded/mallory/lab4/gae.py", "link") in kinds, leaks
    assert ("feedback/mallory/lab4/notes.py", "link") in kinds, leaks


# -- on real builds ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def course_dir(tmp_path_factory) -> Path:
    # The whole course, as CI checks every release (the build itself runs the leak check).
    out = tmp_path_factory.mktemp("leaks") / "course"
    proc = run_grader("build", "--course-dir", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "leak check:" in proc.stdout
    return out


@pytest.mark.slow
def test_a_clean_release_passes(course_dir):
    proc = run_grader("leak-check", "--course-dir", str(course_dir))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_leaky_release_fails_naming_each_leak(course_dir, tmp_path):
    leaky = tmp_path / "course"
    shutil.copytree(course_dir, leaky)
    path = leaky / "release/ps4b/ps4b.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "gae_advantages":
            cell.source = cell.source.replace(
                "    raise NotImplementedError(",
                "    " + gae_solution_line().strip() + "\n    raise NotImplementedError(",
            )
    nb.cells.append(nbformat.v4.new_markdown_cell("Hint: the optimal baseline of the example is b* = 8.2."))
    nb.cells.append(nbformat.v4.new_code_cell("# " + hidden_line().strip()))
    nbformat.write(nb, path)
    proc = run_grader("leak-check", "--course-dir", str(leaky))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for kind in ("solution line", "hidden-test code", "hidden expected value"):
        assert kind in proc.stdout, proc.stdout
    assert "release/ps4b/ps4b.ipynb" in proc.stdout


@pytest.mark.slow
def test_a_build_whose_prose_or_stubs_leak_fails(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    for part in ("course.yaml", "solutions", "exercises", "autograder-tests", "notebooks"):
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, course / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.is_file():
            shutil.copy(source, course / part)
    prose = course / "notebooks/assignments.yaml"
    prose.write_text(
        prose.read_text().replace(
            "    ### What this problem set is about\n\n    **Two masks",
            "    ### What this problem set is about\n\n    (The worked example ends at G_0 = 2.75.)\n\n    **Two masks",
            1,
        )
    )
    with open(course / "exercises/gae.py", "a") as handle:
        handle.write("\n# " + gae_solution_line().strip() + "\n")
    proc = run_grader("build", "--course", str(course), "--course-dir", str(tmp_path / "build"), "--assignment", "ps4b")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "hidden expected value" in proc.stdout and "release/ps4b/ps4b.ipynb" in proc.stdout
    assert "solution line" in proc.stdout and "exercises/gae.py" in proc.stdout
