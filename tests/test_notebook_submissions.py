"""A notebook is a submission for every verb, through one extraction (issue 18, item 2)."""

from __future__ import annotations

import csv
import json
import shutil

import nbformat
import pytest

from grader.notebooks.submission import IMPLEMENTED, STUB, prepare, rank_of
from tests.helpers import grade_json, run_grader
from tests.test_cell_isolation import COURSE, notebook

PS4B = [e.function for e in COURSE.assignment("ps4b").exercises]
BROKEN_PRINT = {"ppo_clipped_terms": lambda s: s + "\nprint(ppo_clipped_terms(my_ratio, my_adv))\n"}


def release_notebook(assignment: str):
    """The notebook as students receive it: every solution cell a stub."""
    from grader.notebooks.segments import student_segments

    segments = student_segments(COURSE)
    return notebook(assignment, {f: (lambda s, f=f: segments[f]) for f in segments})


def test_a_stub_is_told_from_an_implementation():
    assert rank_of('def f(x):\n    """doc"""\n    raise NotImplementedError(\'f\')\n', "f") == STUB
    assert rank_of("def f(x):\n    return x\n", "f") == IMPLEMENTED
    assert rank_of("f = None  # your answer\n", "f") == STUB and rank_of("f = 'a'\n", "f") == IMPLEMENTED


@pytest.mark.slow
def test_grade_and_check_take_a_notebook(tmp_path):
    path = tmp_path / "jack_ps4b.ipynb"
    nbformat.write(notebook("ps4b", BROKEN_PRINT), path)
    proc = run_grader("grade", "--json", str(path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["total"], result["max"]) == (9, 12)  # graded out of its assignment's points
    assert result["notes"]["gae_advantages"] == ["graded from jack_ps4b.ipynb, cell 8"]
    check = run_grader("check", str(path))
    assert check.returncode == 1, check.stdout + check.stderr
    assert "ppo_clipped_terms: 0/" in check.stdout and "the cell of ppo_clipped_terms (cell 12)" in check.stdout
    assert "gae_advantages: 3/3 visible tests passed" in check.stdout or "✓ gae_advantages" in check.stdout


@pytest.mark.slow
def test_an_implemented_source_wins_over_an_untouched_stub(tmp_path):
    stubs_and_notebook = tmp_path / "stubs_and_notebook"  # the Gradescope observation: stub modules beside
    stubs_and_notebook.mkdir()  # a complete notebook
    for module in ("gae", "ppo_objective"):
        shutil.copy(COURSE.exercises_dir / f"{module}.py", stubs_and_notebook)
    nbformat.write(notebook("ps4b", {}), stubs_and_notebook / "ps4b.ipynb")
    modules_and_stub_notebook = tmp_path / "modules_and_stub_notebook"
    modules_and_stub_notebook.mkdir()
    for module in ("gae", "ppo_objective"):
        shutil.copy(COURSE.solutions_dir / f"{module}.py", modules_and_stub_notebook)
    nbformat.write(release_notebook("ps4b"), modules_and_stub_notebook / "ps4b.ipynb")
    first, second = grade_json(stubs_and_notebook, modules_and_stub_notebook, only=PS4B)
    assert (first["total"], second["total"]) == (12, 12)
    path, ex = prepare(COURSE, stubs_and_notebook, tmp_path / "out", PS4B)
    assert ex.notes["ppo_diagnostics"] == [
        "graded from ps4b.ipynb, cell 15, which implements it (ppo_objective.py has it unfinished and was not graded)"
    ]
    _, ex = prepare(COURSE, modules_and_stub_notebook, tmp_path / "out2", PS4B)
    assert ex.notes["gae_advantages"][0].startswith("graded from gae.py, which implements it (ps4b.ipynb, cell 8")


@pytest.mark.slow
def test_grade_class_takes_notebooks_as_files_and_in_folders(tmp_path):
    klass = tmp_path / "class"
    (klass / "ivy").mkdir(parents=True)
    nbformat.write(notebook("ps4b", BROKEN_PRINT), klass / "jack_ps4b.ipynb")
    nbformat.write(notebook("ps4b", {}), klass / "ivy" / "ps4b.ipynb")
    only = [arg for f in PS4B for arg in ("--only", f)]
    proc = run_grader("grade-class", str(klass), "--out", str(tmp_path / "out"), "-j", "1", *only)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(tmp_path / "out" / "summary.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert (rows["jack"]["ps4b"], rows["ivy"]["ps4b"]) == ("9", "12")
    record = json.loads((tmp_path / "out/results/jack.json").read_text())
    assert record["notes"]["ppo_clipped_terms"] == ["graded from jack_ps4b.ipynb, cell 12"]
