"""Trusted grading records: one JSON file per student and assignment.

``grader autograde`` grades first and writes ``grader-results/<assignment>/<student>.json``;
nbgrader's autograde step then reads it (``TrustedGrade``) to fill the autograded
cells. A record is used only while its key still matches (:func:`record_key`): the same
extracted modules and notes, graded by the same course (course.yaml, solutions, exercises/,
tests), the same grading code and the same Python and numpy.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from typing import TYPE_CHECKING

from grader.classgrade.fingerprint import submission_fingerprint
from grader.grade.render import format_points

if TYPE_CHECKING:  # extraction imports nbformat: not needed to read or report a record
    from grader.autograde.extract import Extraction

RESULTS_DIR = "grader-results"
GENERAL = ""  # notes key for the submission as a whole
WHERE = re.compile(r"\b(\w+)\.py, line (\d+)")


def record_key(extraction: Extraction, course_hash: str) -> str:
    """The key of a record: the fingerprints of what was graded and of what graded it.

    ``course_hash`` is :func:`grader.classgrade.fingerprint.course_fingerprint` of the course
    (computed once per class); the submission is the extraction folder, hashed the way
    ``grader grade-class`` hashes a submission.
    """
    notes = json.dumps(extraction.notes, sort_keys=True)
    text = f"{submission_fingerprint(extraction.directory)}\0{course_hash}\0{notes}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_path(course_dir: Path, assignment: str, student: str) -> Path:
    return Path(course_dir) / RESULTS_DIR / assignment / f"{student}.json"


def make_record(student: str, assignment: str, extraction: Extraction, result: dict, key: str,
                labs: list[str] = ()) -> dict:
    """The record of one graded submission; ``result`` is ``SubmissionResult.to_json()``."""
    return {
        "student": student,
        "assignment": assignment,
        "labs": list(labs),
        "key": key,
        "notes": extraction.notes,
        "spans": {f: [s.module, s.first, s.last] for f, s in extraction.spans.items()},
        "result": result,
    }


def save_record(course_dir: Path, record: dict) -> Path:
    path = record_path(course_dir, record["assignment"], record["student"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def load_record(course_dir: Path, assignment: str, student: str) -> dict | None:
    path = record_path(course_dir, assignment, student)
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None


def scores(record: dict) -> dict[str, tuple[float, float]]:
    """function -> (score, max) of a record."""
    return {name: (float(f["score"]), float(f["max"])) for name, f in record["result"]["functions"].items()}


# -- what a student reads ------------------------------------------------------------------
def _where(text: str, spans: dict[str, list]) -> str:
    """'gae.py, line 57' -> 'the cell of gae_advantages, line 12' when the line is in a cell."""
    def replace(match):
        module, line = match.group(1), int(match.group(2))
        for function, (span_module, first, last) in spans.items():
            if span_module == module and first <= line <= last:
                return f"the cell of {function}, line {line - first + 1}"
        return match.group(0)

    return WHERE.sub(replace, text)


def _notes(record: dict, function: str) -> list[str]:
    notes = record.get("notes", {})
    return notes.get(GENERAL, []) + notes.get(function, [])


def _messages(record: dict, function: str) -> list[str]:
    """The distinct failure messages of one exercise, cell lines named as the student sees them."""
    f = record["result"]["functions"][function]
    messages = list(dict.fromkeys(t["message"] for t in f.get("tests", []) if not t["passed"] and t["message"]))
    if f.get("error") == "not implemented" and function not in record.get("labs", []):
        messages = [f"{function} is not implemented yet: it still raises NotImplementedError"]
    if f.get("error") and not messages:
        messages = [f"{function}: {f['error']}"]
    return [_where(m, record.get("spans", {})) for m in messages]


def function_report(record: dict, function: str) -> str:
    """Score and messages of one exercise, as plain text: the output of its autograded cell
    in nbgrader, the ``output`` of its test in Gradescope's results.json.

    Everything here comes from the failure messages of the tests (written for
    students: the misconception, never a hidden value) and from the extraction.
    ``record`` needs only ``result`` (``SubmissionResult.to_json()``); ``notes``,
    ``spans`` and ``labs`` come from an extraction.
    """
    f = record["result"]["functions"].get(function)
    if f is None:
        return f"{function}: not graded\n"
    tests = f.get("tests", [])
    lines = [f"{function}: {format_points(f['score'])} of {format_points(f['max'])} points "
             "(hidden tests, run by the course grader)"]
    lines += [f"! {note}" for note in _notes(record, function)]
    lines += [f"\u2717 {message}" for message in _messages(record, function)]
    if tests:
        lines.append(f"{sum(1 for t in tests if t['passed'])} of {len(tests)} checks passed")
    return "\n".join(lines) + "\n"


def first_issue(record: dict) -> str:
    """The first thing to look at in a record: a note or message of the first exercise that lost points."""
    for function, (score, most) in scores(record).items():
        if score < most:
            found = _notes(record, function) + _messages(record, function)
            return found[0] if found else f"{function}: {format_points(score)}/{format_points(most)}"
    return ""
