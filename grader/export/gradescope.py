"""Gradescope's autograder ``results.json`` from a grading result.

Gradescope runs one submission per container and reads
``/autograder/results/results.json``: a total ``score`` and one entry per test with
``name``, ``score``, ``max_score``, ``output`` and ``visibility``. Here a "test" is
one exercise: its points and the misconception messages of its failed checks,
the same text the nbgrader feedback shows (:func:`grader.autograde.records.function_report`;
never hidden inputs or expected values).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.autograde.records import function_report
from grader.errors import GraderError
from grader.grade.render import format_points
from grader.grade.results import SubmissionResult


def gradescope_results(result: SubmissionResult) -> dict:
    """The ``results.json`` document of one graded submission (plain floats only)."""
    record = {"result": result.to_json()}  # the same report as the nbgrader feedback
    tests = [{
        "name": f"{f.assignment}: {name}",
        "score": float(f.score),
        "max_score": float(f.max),
        "output": function_report(record, name),
        "visibility": "visible",
    } for name, f in result.functions.items()]
    return {
        "score": float(result.total),
        "output": f"{format_points(result.total)} of {format_points(result.max)} points from the hidden tests.",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def write_gradescope(result: SubmissionResult, out: Path | str) -> Path:
    """Write ``results.json`` (``out`` may be the file or a directory to put it in)."""
    out = Path(out)
    if out.is_dir():
        out = out / "results.json"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(gradescope_results(result), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise GraderError(f"cannot write {out}: {exc.strerror}") from None
    return out
