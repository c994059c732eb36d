"""Gradescope's autograder ``results.json`` from a grading result.

Gradescope runs one submission per container and reads
``/autograder/results/results.json``: a total ``score`` and one entry per test with
``name``, ``score``, ``max_score``, ``output`` and ``visibility``. Here a "test" is
one exercise: its points and the misconception messages of its failed checks,
the same text the nbgrader feedback shows (never hidden inputs or expected values).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.errors import GraderError
from grader.grade.results import SubmissionResult


def _output(function) -> str:
    if function.error == "not implemented":
        return f"{function.function} is not implemented yet"
    messages = function.messages or ([f"{function.function}: {function.error}"] if function.error else [])
    if not messages:
        return "all checks passed"
    passed = sum(1 for t in function.tests if t.passed)
    lines = [f"- {m}" for m in messages]
    if function.tests:
        lines.append(f"{passed} of {len(function.tests)} checks passed")
    return "\n".join(lines)


def gradescope_results(result: SubmissionResult) -> dict:
    """The ``results.json`` document of one graded submission (plain floats only)."""
    tests = [{
        "name": f"{f.assignment}: {name}",
        "score": float(f.score),
        "max_score": float(f.max),
        "output": _output(f),
        "visibility": "visible",
    } for name, f in result.functions.items()]
    return {
        "score": float(result.total),
        "output": f"{result.total:g} of {result.max:g} points from the hidden tests.",
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
