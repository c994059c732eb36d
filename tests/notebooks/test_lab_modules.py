"""Labs take the student's functions from their completed notebooks, without hand copying (issue 18, item 5)."""

from __future__ import annotations

import nbformat
import pytest

from grader.build.notebook import build_notebook
from grader.check.command import ALL_PASSED
from tests.helpers import run_grader
from tests.notebooks.test_cell_isolation import COURSE, notebook
from tests.notebooks.test_submissions import release_notebook


@pytest.mark.slow
def test_grader_modules_writes_the_lab_modules_from_completed_notebooks(tmp_path):
    for assignment in ("ps4a", "ps4b", "ps4c"):
        nbformat.write(notebook(assignment, {}), tmp_path / f"{assignment}.ipynb")
    nbformat.write(release_notebook("ps4d"), tmp_path / "ps4d.ipynb")  # stubs only: nothing to write
    lab = tmp_path / "lab4"
    proc = run_grader(
        "modules", *[str(tmp_path / f"{a}.ipynb") for a in ("ps4a", "ps4b", "ps4c", "ps4d")], "--out", str(lab)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = " ".join(proc.stdout.split())
    assert "wrote" in said and 'gae_advantages from ps4b.ipynb, the cell under "Exercise 1: gae_advantages' in said
    written = sorted(p.stem for p in lab.glob("*.py"))
    assert written == sorted({e.module for a in ("ps4a", "ps4b", "ps4c") for e in COURSE.assignment(a).exercises})
    functions = [e.function for a in ("ps4a", "ps4b", "ps4c") for e in COURSE.assignment(a).exercises]
    check = run_grader("check", str(lab), *[arg for f in functions for arg in ("--only", f)])
    assert check.returncode == 0 and ALL_PASSED in check.stdout, check.stdout + check.stderr
    # The lab's own code imports them as the student's modules.
    student = run_grader("grade", "--json", str(lab), "--only", "gae_advantages")
    assert student.returncode == 0 and '"total": 5.0' in student.stdout


def test_the_lab_notebook_says_how():
    lab = COURSE.assignment("lab4")
    text = next(c.source for c in build_notebook(COURSE, lab).cells if "How to work in this lab" in c.source)
    assert "grader modules" in text and "nothing to copy by hand" in text
