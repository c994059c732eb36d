"""Concept answers get visible format checks, in `grader check` and in the notebook (issue 18, item 4)."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from grader import testing
from grader.answers import Choice, Flags, MultiSelect, Numeric, TrueFalse
from grader.build.notebook import build_notebook
from grader.check.command import ALL_PASSED
from grader.core.course import load_course
from grader.notebooks.cells import helper_source
from tests.helpers import ROOT, run_grader

COURSE = load_course(ROOT, check_files=False)
ANSWERS = [e for e in COURSE.exercises if e.kind == "answer"]


def question(path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def structure(q) -> tuple:
    """What decides whether an answer is well formed (not the key, not the explanations)."""
    shape = {
        TrueFalse: lambda: len(q.explanations),
        MultiSelect: lambda: tuple(q.options),
        Choice: lambda: (q.choices, q.single, len(q.explanations)),
        Flags: lambda: tuple(q.explanations),
        Numeric: lambda: (q.shape, tuple(q.explanations)),
    }
    return type(q), shape[type(q)]()


@pytest.mark.parametrize("exercise", ANSWERS, ids=lambda e: e.function)
def test_each_answer_has_a_visible_format_check_that_reads_as_its_hidden_question(exercise, monkeypatch):
    # A hidden question reads its key from the course in grader.testing's context at import: this
    # course, not one an earlier test of the session left there (the toy course has no such answer).
    monkeypatch.setattr(testing.CONTEXT, "course", COURSE)
    hidden = question(COURSE.hidden_test_file(exercise.function), f"hidden_{exercise.function}").QUESTION
    visible_module = question(COURSE.visible_test_file(exercise.function), f"visible_{exercise.function}")
    visible = visible_module.FORMAT
    assert exercise.visible and structure(visible) == structure(hidden)
    assert not any(visible.explanations.values()), "a visible check carries no explanation"
    if isinstance(visible, Numeric):
        tol = exercise.tolerance
        assert (visible.tolerance.rtol, visible.tolerance.atol) == (tol.rtol, tol.atol)


def answer_sheet(tmp_path, **answers: str):
    folder = tmp_path / "sheet"
    folder.mkdir()
    text = (COURSE.exercises_dir / "concept_checks.py").read_text()
    for name, value in answers.items():
        assert f"\n{name} = None" in text
        text = text.replace(f"\n{name} = None", f"\n{name} = {value}")
    (folder / "concept_checks.py").write_text(text)
    return folder


@pytest.mark.slow
def test_grader_check_reports_format_problems_and_counts_unanswered_items(tmp_path):
    sheet = answer_sheet(
        tmp_path, direct_dependence_statements='"TFTF"', past_reward_weight='"e"', same_group_scale="0.875"
    )
    only = [arg for e in ANSWERS for arg in ("--only", e.function)]
    proc = run_grader("check", str(sheet), *only)
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 1 and ALL_PASSED not in out
    assert "direct_dependence_statements: expected a tuple of booleans, got str" in out
    assert "past_reward_weight: the answer is 'e', which is not one of the choices" in out
    n = len(ANSWERS)  # every concept question: one answered right, two malformed, the rest None
    assert f"1 of {n} written in the right format, 2 malformed or unreadable, {n - 3} still None" in out
    assert "0.875" not in out.replace("same_group_scale = 0.875", "")  # nothing of an answer's key shown

    shutil.rmtree(sheet)
    broken = answer_sheet(tmp_path, same_group_scale="(0.875")  # an unclosed parenthesis
    proc = run_grader("check", str(broken), *only)
    assert proc.returncode == 1 and ALL_PASSED not in proc.stdout and "SyntaxError" in proc.stdout


def test_the_notebook_check_cells_check_the_format(capsys):
    nb = build_notebook(COURSE, COURSE.assignment("ps4d"))
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in nb.cells}
    namespace: dict = {}
    exec(helper_source(), namespace)
    namespace["direct_dependence_statements"] = "TFTF"
    with pytest.raises(AssertionError):
        exec(cells["test_direct_dependence_statements"], namespace)
    assert "expected a tuple of booleans, got str" in capsys.readouterr().out
    namespace["same_group_scale"] = None  # its tolerance is stated in the check: no course.yaml needed
    with pytest.raises(AssertionError):
        exec(cells["test_same_group_scale"], namespace)
    assert "not answered yet: replace None with a number, graded within 0.001" in capsys.readouterr().out
    namespace["direct_dependence_statements"] = (True, False, True, False)
    exec(cells["test_direct_dependence_statements"], namespace)
    assert "has no visible checks" not in capsys.readouterr().out
