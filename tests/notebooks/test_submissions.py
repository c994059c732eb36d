"""A notebook is a submission for every verb, through one extraction (issue 18, item 2)."""

from __future__ import annotations

import csv
import json
import shutil

import nbformat
import pytest

from grader.feedback import is_information
from grader.notebooks.extract import IMPLEMENTED, STUB, cell_name, heading_of, rank_of
from grader.notebooks.submission import notebook_scope, prepare
from tests.helpers import grade_json, run_grader
from tests.notebooks.test_cell_isolation import COURSE, notebook

PS4B = [e.function for e in COURSE.assignment("ps4b").exercises]
# How Jupyter shows the solution cells of ps4b: under their exercise's heading.
GAE_CELL = 'the cell under "Exercise 1: gae_advantages (5 points)"'
CLIPPED_CELL = 'the cell under "Exercise 2: ppo_clipped_terms (3 points)"'
DIAGNOSTICS_CELL = 'the cell under "Exercise 3: ppo_diagnostics (4 points)"'
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
    nb = notebook("ps4b", BROKEN_PRINT)
    nbformat.write(nb, path)
    cell = next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ppo_clipped_terms")
    last = len("".join(cell).rstrip("\n").splitlines())  # the failing print is the cell's last line
    proc = run_grader("grade", "--json", str(path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["total"], result["max"]) == (9, 12)  # graded out of its assignment's points
    assert result["notes"]["gae_advantages"] == [f"graded from jack_ps4b.ipynb, {GAE_CELL}"]
    # Every message names the cell as Jupyter shows it, never the file it ran as.
    clipped = result["functions"]["ppo_clipped_terms"]
    assert f"(at {CLIPPED_CELL}, line {last})" in clipped["tests"][0]["message"], clipped
    assert "cell_ppo_clipped_terms" not in proc.stdout
    check = run_grader("check", str(path))
    assert check.returncode == 1, check.stdout + check.stderr
    assert "ppo_clipped_terms: 0/" in check.stdout and f"(at {CLIPPED_CELL}, line {last})" in check.stdout
    # Which file and cell was checked is information, on the exercise's own line, with no warning's mark.
    lines = check.stdout.splitlines()
    assert f"✓ gae_advantages: 3/3 visible tests passed (jack_ps4b.ipynb, {GAE_CELL})" in lines, check.stdout
    assert not [line for line in lines if line.startswith("!")], check.stdout


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
        f"graded from ps4b.ipynb, {DIAGNOSTICS_CELL}, which implements it (ppo_objective.py has it unfinished and "
        "was not graded)"
    ]
    _, ex = prepare(COURSE, modules_and_stub_notebook, tmp_path / "out2", PS4B)
    assert ex.notes["gae_advantages"][0].startswith(f"graded from gae.py, which implements it (ps4b.ipynb, {GAE_CELL}")


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
    assert record["notes"]["ppo_clipped_terms"] == [f"graded from jack_ps4b.ipynb, {CLIPPED_CELL}"]


def test_a_cell_is_named_as_jupyter_shows_it(tmp_path):
    """By its exercise's heading (or its first line), and In [n] when the notebook was saved after running it."""
    nb = notebook("ps4b", {})
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "gae_advantages":
            cell.execution_count = 7
    nbformat.write(nb, tmp_path / "ps4b.ipynb")
    _, ex = prepare(COURSE, tmp_path / "ps4b.ipynb", tmp_path / "out", PS4B)
    assert ex.notes["gae_advantages"] == [f"graded from ps4b.ipynb, {GAE_CELL}, In [7]"]
    assert ex.spans["gae_advantages"].name == f"{GAE_CELL}, In [7]"
    assert ex.notes["ppo_clipped_terms"] == [f"graded from ps4b.ipynb, {CLIPPED_CELL}"]  # never run: no In [n]
    # Which cell was graded is information, not a warning.
    assert is_information(ex.notes["gae_advantages"][0])
    assert cell_name(None, "# -----------\n# 9. One group of four\nrloo_advantages = None\n") == (
        'the cell "# 9. One group of four"'
    )
    assert heading_of("## Question 9: `rloo_advantages` (2 points)\n\ntext") == "Question 9: rloo_advantages (2 points)"


def test_a_labs_notebook_alone_is_checked_with_the_modules_beside_it(tmp_path):
    """As the lab's notebook imports them (`grader modules` writes them there): for `grader check` only."""
    folder = tmp_path / "lab"
    folder.mkdir()
    nbformat.write(notebook("lab4", {}), folder / "lab4.ipynb")
    shutil.copy(COURSE.solutions_dir / "gae.py", folder)
    staged, ex = prepare(COURSE, folder / "lab4.ipynb", tmp_path / "out", beside=True)
    assert (staged / "gae.py").read_bytes() == (COURSE.solutions_dir / "gae.py").read_bytes()
    # A lab's notebook has no solution cell: it is checked for the lab's exercises, not the module's.
    assert notebook_scope(COURSE, folder / "lab4.ipynb", ex, None) == ["cartpole_ppo_lab", "sequence_rloo_lab"]
    # A class's notebooks may share a folder: there nothing beside a notebook comes along.
    staged, _ = prepare(COURSE, folder / "lab4.ipynb", tmp_path / "out2")
    assert not (staged / "gae.py").exists()
    # Nor beside a problem set's notebook, whose own cells are what is checked.
    nbformat.write(notebook("ps4b", {}), folder / "ps4b.ipynb")
    staged, _ = prepare(COURSE, folder / "ps4b.ipynb", tmp_path / "out3", beside=True)
    extracted = (staged / "gae.py").read_text()
    assert extracted.startswith('"""gae: extracted from a notebook') and "gae_advantages" in extracted


def test_information_is_not_marked_as_a_warning():
    """Which file and cell was graded informs; a cell's lines left out warn (nbgrader's and Gradescope's report)."""
    from grader.core.results import FunctionResult, SubmissionResult
    from grader.engine.record import GradeRecord
    from grader.feedback import function_report

    graded = f"graded from ps4b.ipynb, {GAE_CELL}, In [3]"
    left_out = f"1 IPython magic or shell line(s) in ps4b.ipynb, {GAE_CELL} were left out (they are not Python)"
    result = SubmissionResult("s", {"gae_advantages": FunctionResult("gae_advantages", "ps4b", 5.0, 5.0, [], None)})
    record = GradeRecord("s", "s", result, assignment="ps4b", notes={"gae_advantages": [graded, left_out]})
    lines = function_report(record, "gae_advantages").splitlines()
    assert graded in lines and f"! {left_out}" in lines and f"! {graded}" not in lines
