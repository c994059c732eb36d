"""Trusted grading records of ``grader autograde``: class-run results plus what a student reads.

``grader autograde`` grades the extracted submissions with the class engine
(:func:`grader.classgrade.run.grade_class`) into ``grader-results/<assignment>/``, a
:class:`~grader.classgrade.store.ResultStore` (``results/<student>.json``, written atomically
as each submission finishes); each record then gains the extraction's notes and cell spans
(:func:`with_extraction`). nbgrader's autograde step reads it (``TrustedGrade``) to fill the
autograded cells. A record is used only while it is current (:func:`is_current`): the same
extracted modules (their submission fingerprint), graded by the same course, grading code
and Python and numpy (the course fingerprint, for the assignment's functions).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from grader.classgrade.fingerprint import submission_fingerprint
from grader.classgrade.store import FORMAT, ResultStore
from grader.grade.render import format_points
from grader.grade.results import messages_of

if TYPE_CHECKING:  # extraction imports nbformat: not needed to read or report a record
    from grader.autograde.extract import Extraction

RESULTS_DIR = "grader-results"
GENERAL = ""  # notes key for the submission as a whole
WHERE = re.compile(r"\b(\w+)\.py, line (\d+)")


def results_store(course_dir: Path, assignment: str) -> ResultStore:
    """Where the records of ``assignment`` live: ``<course_dir>/grader-results/<assignment>/``."""
    return ResultStore(Path(course_dir) / RESULTS_DIR / assignment)


def is_current(record: dict | None, extraction: Extraction, course_hash: str) -> bool:
    """Is ``record`` the grade of exactly these extracted modules by this course?

    ``course_hash`` is :func:`grader.classgrade.run.run_fingerprint` for the assignment's functions.
    """
    return (record is not None and extraction.readable and record.get("course_hash") == course_hash
            and record.get("submission_hash") == submission_fingerprint(extraction.directory))


def with_extraction(record: dict, assignment: str, extraction: Extraction, labs: list[str] = ()) -> dict:
    """``record`` with what the extraction tells the student: notes and where each cell landed."""
    return dict(record, assignment=assignment, labs=list(labs), notes=extraction.notes,
                spans={f: [s.module, s.first, s.last] for f, s in extraction.spans.items()})


def make_record(student: str, assignment: str, extraction: Extraction, result: dict, course_hash: str = "",
                labs: list[str] = ()) -> dict:
    """A record made without the class engine (a submission with nothing to run); ``result`` is
    ``SubmissionResult.to_json()``. Its empty submission fingerprint never passes for current."""
    record = {"format": FORMAT, "student": student, "submission": str(extraction.directory), "submission_hash": "",
              "course_hash": course_hash, "result": result}
    return with_extraction(record, assignment, extraction, labs)


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
    messages = messages_of(f)
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
