"""A solution cell that fails when it runs costs its own exercise only (issue 18, item 1).

Replays the observations: a ps4b notebook whose ppo_clipped_terms cell ends with a print
of the student's scratch variables, and a ps4d notebook with one forgotten quote.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from grader.build.notebook import build_notebook
from grader.core.course import load_course
from grader.core.results import SubmissionResult
from grader.engine.record import GradeRecord
from grader.feedback import function_report
from grader.notebooks.extract import extract_submission
from tests.helpers import ROOT, grade_json

COURSE = load_course(ROOT, check_files=False)


def notebook(assignment: str, edits: dict):
    """The assignment's notebook with the reference answers, each cell in ``edits`` changed by its function."""
    nb = build_notebook(COURSE, COURSE.assignment(assignment))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta["grade_id"] in edits:
            cell.source = edits[meta["grade_id"]](cell.source)
    return nbformat.from_dict(json.loads(nbformat.writes(nb)))


def graded(tmp_path, assignment: str, edits: dict) -> GradeRecord:
    a = COURSE.assignment(assignment)
    ex = extract_submission(COURSE, a, [notebook(assignment, edits)], [], None, tmp_path / assignment)
    data = grade_json(tmp_path / assignment, only=[e.function for e in a.exercises])[0]
    result = SubmissionResult.from_json(data, lambda f: COURSE.exercise(f).assignment)
    return GradeRecord("s", "s", result).with_extraction(assignment, ex)


def scores(record: GradeRecord) -> dict[str, float]:
    return {f: r.score for f, r in record.result.functions.items()}


@pytest.mark.slow
def test_a_failing_print_at_the_end_of_a_cell_costs_that_exercise_only(tmp_path):
    record = graded(
        tmp_path, "ps4b", {"ppo_clipped_terms": lambda s: s + "\nprint(ppo_clipped_terms(my_ratio, my_adv))\n"}
    )
    assert scores(record) == {"gae_advantages": 5, "ppo_clipped_terms": 0, "ppo_diagnostics": 4}
    report = function_report(record, "ppo_clipped_terms")
    assert "NameError" in report and "my_ratio" in report
    assert "ppo_objective.py" not in report and 'the cell under "Exercise 2: ppo_clipped_terms (3 points)"' in report
    span = record.spans["ppo_clipped_terms"]
    cell_line = span[2] - span[1] + 1  # the print is the cell's last line
    assert f"line {cell_line}" in report, report
    assert "ppo_objective" not in function_report(record, "ppo_diagnostics")


@pytest.mark.slow
def test_a_concept_answer_that_does_not_run_costs_that_question_only(tmp_path):
    record = graded(
        tmp_path,
        "ps4d",
        {
            "past_reward_weight": lambda s: s.replace('past_reward_weight = "a"', "past_reward_weight = a"),
            "same_group_scale": lambda s: s.replace("same_group_scale = ", "same_group_scale = (", 1),
        },
    )
    lost = {f: s for f, s in scores(record).items() if s < COURSE.exercise(f).points}
    assert lost == {"past_reward_weight": 0, "same_group_scale": 0}
    full = sum(e.points for e in COURSE.assignment("ps4d").exercises)
    assert record.result.total == full - 1 - 1
    assert "NameError" in function_report(record, "past_reward_weight")
    assert "syntax error" in function_report(record, "same_group_scale")


def instructions(assignment: str) -> str:
    nb = build_notebook(COURSE, COURSE.assignment(assignment))
    return next(c.source for c in nb.cells if c.source.startswith("### How to work in this notebook"))


def test_the_notebook_says_what_runs_at_grading():
    for assignment in ("ps4b", "ps4d"):
        text = " ".join(instructions(assignment).split())
        assert "every line of each exercise cell, each cell on its own" in text
        assert "Cells you add yourself never run" in text and "other exercises keep their points" in text
    assert "NotImplementedError" in instructions("ps4b")
    assert "NotImplementedError" not in instructions("ps4d") and "`None`" in instructions("ps4d")
