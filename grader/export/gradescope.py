"""Gradescope's autograder ``results.json`` from a grade record.

Gradescope runs one submission per container and reads
``/autograder/results/results.json``: a total ``score`` and one entry per test with
``name``, ``score``, ``max_score``, ``output`` and ``visibility``. Here a "test" is
one exercise: its points and the misconception messages of its failed checks,
the same text the nbgrader feedback shows (:func:`grader.feedback.function_report`;
never hidden inputs or expected values).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.engine.record import GradeRecord
from grader.errors import GraderError
from grader.feedback import format_points, function_report


def gradescope_results(record: GradeRecord) -> dict:
    """The ``results.json`` document of one graded submission (plain floats only)."""
    result = record.result
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


def write_gradescope(record: GradeRecord, out: Path | str) -> Path:
    """Write ``results.json`` (``out`` may be the file or a directory to put it in)."""
    out = Path(out)
    if out.is_dir():
        out = out / "results.json"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(gradescope_results(record), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise GraderError(f"cannot write {out}: {exc.strerror}") from None
    return out
