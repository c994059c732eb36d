"""Gradescope's autograder ``results.json`` from a grade record.

Gradescope runs one submission per container and reads
``/autograder/results/results.json`` (its documented fields:
``tests/data/gradescope_results.schema.json``). Here a "test" is one exercise: its
``score`` and ``max_score``, and as ``output`` the misconception messages of its
failed checks, the same text the nbgrader feedback shows
(:func:`grader.feedback.function_report`; never hidden inputs or expected values).
Every test has the course's ``gradescope.visibility`` (course.yaml; by default
``after_published``: students see the hidden tests' verdicts when the grades are
published). Every text is plain text (``*_format: text``): a student's exception
message is never rendered as HTML or Markdown.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from grader.core.course import DEFAULT_GRADESCOPE
from grader.engine.record import GradeRecord
from grader.engine.store import atomic_write
from grader.errors import GraderError
from grader.feedback import GENERAL, format_points, function_report

MAX_OUTPUT = 10_000  # characters of one output; Gradescope shows a test's output whole


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_OUTPUT else text[:MAX_OUTPUT] + "\n... (cut: too long)\n"


def gradescope_results(record: GradeRecord, *, visibility: str = DEFAULT_GRADESCOPE["visibility"]) -> dict:
    """The ``results.json`` document of one graded submission (plain floats only).

    A notebook's record carries its extraction's notes, which the outputs show too;
    ``execution_time`` is the record's grading time, in whole seconds.
    """
    result = record.result
    tests = [
        {
            "name": f"{f.assignment}: {name}",
            "score": float(f.score),
            "max_score": float(f.max),
            "output": _bounded(function_report(record, name)),
            "visibility": visibility,
        }
        for name, f in result.functions.items()
    ]
    summary = [f"{format_points(result.total)} of {format_points(result.max)} points from the hidden tests."]
    summary += [f"! {note}" for note in record.notes.get(GENERAL, [])]
    return {
        "score": float(result.total),
        "output": _bounded("\n".join(summary) + "\n"),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": visibility,
        "stdout_visibility": "hidden",  # the grader's log is for the course staff
        "execution_time": int(math.ceil(record.elapsed)),
        "tests": tests,
    }


def write_gradescope(record: GradeRecord, out: Path | str, **options) -> Path:
    """Write ``results.json`` atomically (``out`` may be the file or a directory to put it in);
    ``options`` are those of :func:`gradescope_results`."""
    out = Path(out)
    if out.is_dir():
        out = out / "results.json"
    try:
        atomic_write(out, json.dumps(gradescope_results(record, **options), indent=1) + "\n")
    except OSError as exc:
        raise GraderError(f"cannot write {out}: {exc.strerror}") from None
    return out
