"""The pieces of the nbgrader pipeline that need no nbgrader run: notebooks, extraction, reports, exports."""

from __future__ import annotations

import ast
import json
import shutil

import nbformat
import pytest

from grader.build.notebook import build_notebook
from grader.build.percent import read_percent
from grader.core.course import load_course
from grader.core.results import SubmissionResult, score_function
from grader.core.results import TestOutcome as Outcome
from grader.engine.record import GradeRecord
from grader.feedback import function_report
from grader.feedback.gradescope import gradescope_results
from grader.notebooks.cells import HIDDEN_BEGIN, HIDDEN_END
from grader.notebooks.extract import GENERAL, extract_submission, read_notebook, solution_cells
from grader.notebooks.segments import course_modules, student_segments
from tests.helpers import ROOT, run_grader

COURSE = load_course(ROOT, check_files=False)
PS4B = COURSE.assignment("ps4b")


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


# -- the generated notebook ---------------------------------------------------------------
@pytest.fixture(scope="module")
def ps4b_notebook():
    return build_notebook(COURSE, PS4B)


def test_notebook_has_a_solution_and_an_autograded_cell_per_exercise(ps4b_notebook):
    cells = {grade_id(c): c for c in ps4b_notebook.cells if grade_id(c)}
    for e in PS4B.exercises:
        solution, tests = cells[e.function], cells[f"test_{e.function}"]
        assert solution.metadata.nbgrader["solution"] and not solution.metadata.nbgrader["grade"]
        assert "### BEGIN SOLUTION" in solution.source
        assert tests.metadata.nbgrader["grade"] and tests.metadata.nbgrader["locked"]
        assert tests.metadata.nbgrader["points"] == e.points
        assert HIDDEN_BEGIN in tests.source and HIDDEN_END in tests.source
        ast.parse(tests.source)  # the hidden region is inert text (comments)
    # Course-provided code (PPODiagnostics) sits in a read-only cell, not in a student's cell.
    provided = cells["provided_code"]
    assert provided.metadata.nbgrader["locked"] and "class PPODiagnostics" in provided.source


def test_building_twice_gives_the_same_notebook():
    first, second = build_notebook(COURSE, PS4B), build_notebook(COURSE, PS4B)
    assert nbformat.writes(first) == nbformat.writes(second)


def test_release_stubs_are_the_stubs_of_exercises():
    segments = student_segments(COURSE)
    stub = (COURSE.exercises_dir / "gae.py").read_text()
    assert segments["gae_advantages"] in stub
    assert 'raise NotImplementedError("gae_advantages is not implemented yet' in segments["gae_advantages"]


def test_answer_questions_keep_their_key_out_of_the_prose():
    answers = [a for a in COURSE.assignments if any(e.kind == "answer" for e in a.exercises)]
    if not answers:
        pytest.skip("no concept-check assignment in this course")
    nb = build_notebook(COURSE, answers[0])
    segments = course_modules(COURSE, {e.function for e in answers[0].exercises})
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            assert "### BEGIN SOLUTION" not in cell.source
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    checked = 0
    for exercise in answers[0].exercises:
        solution = segments[exercise.module].exercises[exercise.function]
        line = next(line for line in solution.splitlines() if line.startswith(exercise.function))
        value = line.split("=", 1)[1].split("#", 1)[0].strip()
        if len(value) > 3:  # a one-letter choice or a multi-line key is not recognisable as text
            assert value not in prose, f"the key of {exercise.function} is in the notebook's prose"
            checked += 1
    assert checked >= len(answers[0].exercises) // 2, "most keys were checked"


def test_percent_reader(tmp_path):
    path = tmp_path / "lab.py"
    path.write_text(
        "# ---\n# jupyter: {}\n# ---\n\n# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n\n"
        "# %% tags=['a']\nprint(x)\n"
    )
    cells = read_percent(path)
    assert [c.cell_type for c in cells] == ["markdown", "code", "code"]
    assert cells[0].source == "# Title\n\ntext" and cells[1].source == "x = 1"


# -- extraction ---------------------------------------------------------------------------
def notebook_with(cells: dict[str, str], extra: list | None = None):
    nb = build_notebook(COURSE, PS4B)
    for cell in nb.cells:
        if grade_id(cell) in cells and cell.metadata.nbgrader.get("solution"):
            cell.source = cells[grade_id(cell)]
    nb.cells.extend(extra or [])
    return nbformat.from_dict(json.loads(nbformat.writes(nb)))


def test_extraction_isolates_a_syntax_error_and_comments_out_magics(tmp_path):
    nb = notebook_with(
        {
            "gae_advantages": "def gae_advantages(:\n    pass\n",
            "ppo_clipped_terms": "%timeit 1\n!ls\ndef ppo_clipped_terms(r, a, clip_epsilon=0.2):\n    return r, a, a\n",
        }
    )
    ex = extract_submission(COURSE, PS4B, [nb], [], None, tmp_path / "out")
    gae = (tmp_path / "out/gae.py").read_text()
    assert "def gae_advantages" not in gae and "import numpy as np" in gae  # course code, not the cell
    assert any("syntax error" in n for n in ex.notes["gae_advantages"])
    ppo = (tmp_path / "out/ppo_objective.py").read_text()
    ast.parse(ppo)
    assert "class PPODiagnostics" in ppo and "def ppo_clipped_terms(r, a" in ppo
    assert any("magic" in n for n in ex.notes["ppo_clipped_terms"])
    span = ex.spans["ppo_clipped_terms"]
    assert (span.first, span.last) == (1, 4) and span.module == "cell_ppo_clipped_terms"
    assert "'pass  # notebook-only line left out: %timeit 1\\n'" in ppo  # line 1 of the cell, kept in place


def test_extraction_takes_only_solution_cells_and_the_last_duplicate(tmp_path):
    cheat = nbformat.v4.new_code_cell("import numpy\nnumpy.allclose = lambda *a, **k: True")
    duplicate = nbformat.v4.new_code_cell("def gae_advantages(*args, **kwargs):\n    return 'last'\n")
    duplicate.metadata["nbgrader"] = {
        "grade_id": "gae_advantages",
        "solution": True,
        "grade": False,
        "locked": False,
        "schema_version": 3,
    }
    nb = notebook_with({}, extra=[cheat, duplicate])
    assert solution_cells(nb)["gae_advantages"].endswith("return 'last'\n")
    extract_submission(COURSE, PS4B, [nb], [], None, tmp_path / "out")
    text = (tmp_path / "out/gae.py").read_text()
    assert "numpy.allclose" not in text and "return 'last'" in text


def test_an_unreadable_notebook_is_a_note_not_a_crash(tmp_path):
    bad = tmp_path / "ps4b.ipynb"
    bad.write_text('{"cells": [')
    nb, problem = read_notebook(bad)
    assert nb is None and "not valid notebook JSON" in problem
    ex = extract_submission(COURSE, PS4B, [], [problem], None, tmp_path / "out")
    assert not ex.readable and ex.notes[GENERAL] == [problem]


def test_lab_modules_come_from_the_submission_and_course_code_from_the_course(tmp_path):
    lab = next((a for a in COURSE.assignments if any(e.kind == "lab" for e in a.exercises)), None)
    if lab is None:
        pytest.skip("no lab in this course")
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    (submitted / "gae.py").write_text("def gae_advantages(*a, **k):\n    return 'mine'\n")
    (submitted / "ppo_training.py").write_text("raise SystemExit('a student copy of course code')\n")
    extract_submission(COURSE, lab, [], [], submitted, tmp_path / "out", student_modules=["gae.py"])
    assert (tmp_path / "out/gae.py").read_text().endswith("'mine'\n")
    assert not (tmp_path / "out/ppo_training.py").exists()  # staging adds the course's own copy


# -- reports and exports ------------------------------------------------------------------
def result_with(outcomes: dict[str, list[Outcome]], error: dict | None = None) -> SubmissionResult:
    functions = {f: score_function(COURSE, f, tests, (error or {}).get(f)) for f, tests in outcomes.items()}
    return SubmissionResult(submission="x", functions=functions)


def test_reports_name_the_misconception_and_the_cell_line(tmp_path):
    result = result_with(
        {
            "gae_advantages": [
                Outcome("a", True, 1, ""),
                Outcome("b", False, 1, "gae_advantages raised ValueError: no (at gae.py, line 12, in gae_advantages)"),
            ]
        }
    )
    ex = extract_submission(COURSE, PS4B, [notebook_with({})], [], None, tmp_path / "out")
    span = ex.spans["gae_advantages"]
    result.functions["gae_advantages"].tests[
        1
    ].message = f"gae_advantages raised ValueError: no (at {span.module}.py, line {span.first + 2}, in gae_advantages)"
    record = GradeRecord("s", "s/ps4b", result).with_extraction("ps4b", ex)
    text = function_report(record, "gae_advantages")
    assert text.startswith("gae_advantages: 2.50 of 5 points")
    assert f"{span.name}, line 3" in text and "1 of 2 checks passed" in text
    assert span.name.startswith('the cell under "') and "gae_advantages" in span.name
    assert span.cell and grade_id(notebook_with({}).cells[span.cell - 1]) == "gae_advantages"


def test_gradescope_results_shape():
    result = result_with(
        {"gae_advantages": [Outcome("a", True, 1, ""), Outcome("b", False, 1, "the why")], "ppo_clipped_terms": []},
        error={"ppo_clipped_terms": "not implemented"},
    )
    doc = gradescope_results(GradeRecord("s", "s", result))
    assert doc["score"] == 2.5 and isinstance(doc["score"], float)
    assert {t["name"] for t in doc["tests"]} == {"ps4b: gae_advantages", "ps4b: ppo_clipped_terms"}
    for test in doc["tests"]:
        assert set(test) == {"name", "score", "max_score", "output", "visibility"}
    gae = next(t for t in doc["tests"] if t["name"].endswith("gae_advantages"))
    assert gae["score"] == 2.5 and gae["max_score"] == 5 and "the why" in gae["output"]


@pytest.mark.slow
def test_grade_gradescope_option(tmp_path):
    out = tmp_path / "results.json"
    proc = run_grader("grade", str(COURSE.solutions_dir), "--only", "gae_advantages", "--gradescope", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["score"] == 5.0 and doc["tests"][0]["score"] == 5.0
    two = run_grader("grade", str(COURSE.solutions_dir), str(COURSE.exercises_dir), "--gradescope", str(out))
    assert two.returncode == 2 and "one submission" in two.stderr


def test_an_assignment_with_missing_pieces_is_skipped_with_the_reason(tmp_path):
    from grader.build.pipeline import not_ready

    lab = next((a for a in COURSE.assignments if any(e.kind == "lab" for e in a.exercises)), None)
    if lab is None:
        pytest.skip("no lab in this course")
    course = tmp_path / "course"
    course.mkdir()
    for part in ("course.yaml", "solutions", "autograder-tests"):
        source = ROOT / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, course / part)
    reduced = load_course(course, check_files=False)
    assert not_ready(reduced, reduced.assignment(lab.id)) == f"no lab notebook at notebooks/{lab.id}*.py yet"
    (course / "solutions/gae.py").unlink()
    assert "gae.py does not exist yet" in not_ready(reduced, reduced.assignment("ps4b"))
