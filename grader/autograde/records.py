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

from grader.autograde.extract import GENERAL, Extraction
from grader.classgrade.fingerprint import submission_fingerprint
from grader.course import Assignment, Course
from grader.grade.results import FunctionResult, SubmissionResult, TestOutcome

RESULTS_DIR = "grader-results"
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


def make_record(student: str, assignment: str, extraction: Extraction, result: SubmissionResult, key: str,
                labs: list[str] = ()) -> dict:
    return {
        "student": student,
        "assignment": assignment,
        "labs": list(labs),
        "key": key,
        "notes": extraction.notes,
        "spans": {f: [s.module, s.first, s.last] for f, s in extraction.spans.items()},
        "result": result.to_json(),
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


def result_from_json(course: Course, data: dict) -> SubmissionResult:
    """Rebuild a :class:`SubmissionResult` from ``SubmissionResult.to_json()``."""
    functions = {}
    for name, f in data.get("functions", {}).items():
        tests = [TestOutcome(t["name"], t["passed"], t["weight"], t["message"]) for t in f.get("tests", [])]
        functions[name] = FunctionResult(function=name, assignment=course.exercise(name).assignment,
                                         score=float(f["score"]), max=float(f["max"]), tests=tests,
                                         error=f.get("error"))
    return SubmissionResult(submission=data.get("submission", ""), functions=functions)


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


def _fmt(x: float) -> str:
    return f"{round(x, 2):g}"


def function_report(record: dict, function: str) -> str:
    """Score and messages of one exercise, as plain text for its autograded cell.

    Everything here comes from the failure messages of the tests (written for
    students: the misconception, never a hidden value) and from the extraction.
    """
    spans = record.get("spans", {})
    f = record["result"]["functions"].get(function)
    notes = record.get("notes", {}).get(GENERAL, []) + record.get("notes", {}).get(function, [])
    if f is None:
        return f"{function}: not graded\n"
    tests = f.get("tests", [])
    passed = sum(1 for t in tests if t["passed"])
    lines = [f"{function}: {_fmt(f['score'])} of {_fmt(f['max'])} points (hidden tests, run by the course grader)"]
    for note in notes:
        lines.append(f"! {note}")
    messages = list(dict.fromkeys(t["message"] for t in tests if not t["passed"] and t["message"]))
    if f.get("error") == "not implemented" and function not in record.get("labs", []):
        messages = [f"{function} is not implemented yet: its cell still raises NotImplementedError"]
    if f.get("error") and not messages:
        messages = [f"{function}: {f['error']}"]
    for message in messages:
        lines.append(f"\u2717 {_where(message, spans)}")
    if tests:
        lines.append(f"{passed} of {len(tests)} checks passed")
    return "\n".join(lines) + "\n"
