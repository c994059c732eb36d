"""The class roster (``grader roster``) and grade files an LMS imports as they are (``grader export``).

A roster is a CSV file with a header: ``id`` (the student id of submitted/<id>/), ``name`` (or
``first_name`` and ``last_name``), ``email`` and ``lms_id`` (the LMS's user id: Canvas's ``ID``,
Moodle's ``ID number``). Its cells are data from outside: each is bounded, ids must be usable
student ids, and a cell that could start a spreadsheet formula is written back quoted with ``'``.

Exports read nbgrader's gradebook (:mod:`grader.notebooks.gradebook`), so they hold what
formgrader shows: the final score of each submission, manual grades included, minus nbgrader's
late penalty.

- ``csv``: ``student_id, first_name, last_name, email, lms_id``, one column per assignment, ``total``;
- ``canvas``: Canvas's gradebook import (Grades > Import): ``Student, ID, SIS User ID, SIS Login
  ID, Section``, one column per assignment headed as Canvas's own export heads it
  (:mod:`grader.export.canvas`), and the ``Points Possible`` row under the header; the SIS columns
  come from Canvas's export or the roster, never from the grader's ids;
- ``moodle``: Moodle's "Import grades from CSV file": ``First name, Last name, ID number, Email
  address``, one column per assignment (map "Email address" to "email address" when importing).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from grader.display import spreadsheet_cell as shown  # a CSV cell never run as a formula
from grader.engine.store import atomic_write
from grader.errors import GraderError
from grader.export.canvas import CanvasGradebook
from grader.feedback import format_points
from grader.lms.roster import Person, read_roster  # noqa: F401  (read_roster: `grader roster` reads it here)

FORMATS = ("csv", "canvas", "moodle")


def fill_gradebook(gb, people: list[Person]) -> tuple[int, int]:
    """Add or update each person as a student of nbgrader's gradebook; (added, updated)."""
    from nbgrader.api import MissingEntry

    added = updated = 0
    for person in people:
        try:
            gb.find_student(person.id)
            updated += 1
        except MissingEntry:
            added += 1
        gb.update_or_create_student(
            person.id,
            first_name=person.first_name or None,
            last_name=person.last_name or None,
            email=person.email or None,
            lms_user_id=person.lms_id or None,
        )
    return added, updated


def gradebook_grades(gb, assignments: list[str] | None = None):
    """(assignment ids with their maximum, rows): each row a student (``Person``) and
    {assignment: final score or None (no submission)}. The final score is the gradebook's (manual
    grades included) minus the late penalty."""
    from nbgrader.api import MissingEntry

    known = {a.name: a for a in gb.assignments}
    names = assignments or sorted(known)
    missing = [a for a in names if a not in known]
    if missing:
        raise GraderError(f"the gradebook has no assignment {', '.join(missing)} (it has {', '.join(sorted(known))})")
    maxima = {a: float(known[a].max_score) for a in names}
    rows = []
    for student in sorted(gb.students, key=lambda s: s.id):
        person = Person(
            student.id,
            student.first_name or "",
            student.last_name or "",
            student.email or "",
            student.lms_user_id or "",
        )
        scores = {}
        for a in names:
            try:
                sub = gb.find_submission(a, student.id)
            except MissingEntry:
                scores[a] = None
                continue
            scores[a] = max(0.0, float(sub.score) - float(sub.late_submission_penalty or 0.0))
        rows.append((person, scores))
    return maxima, rows


@dataclass
class ExportPlan:
    """How a file is headed and who is in it: each assignment's column, the roster's SIS cells, and
    (Canvas) the LMS's own gradebook whose columns and students an import matches."""

    columns: dict[str, str] = field(default_factory=dict)  # assignment id -> header
    roster: dict[str, Person] = field(default_factory=dict)  # student id -> the roster's line
    canvas: CanvasGradebook | None = None
    left_out: list[str] = field(default_factory=list)  # students the file cannot name, with why


def export_rows(fmt: str, maxima: dict[str, float], rows, plan: ExportPlan) -> list[list[str]]:
    """The lines of the file ``fmt`` (one of :data:`FORMATS`) as lists of cells; students the LMS could
    not match (no LMS id) are left out of an LMS's file and named in ``plan.left_out``."""
    names = list(maxima)
    score = lambda scores, a: "" if scores[a] is None else format_points(scores[a])  # noqa: E731
    headers = [plan.columns.get(a, a) for a in names]
    if fmt == "csv":
        out = [["student_id", "first_name", "last_name", "email", "lms_id", *names, "total"]]
        for p, scores in rows:
            total = sum(v for v in scores.values() if v is not None)
            cells = [p.id, shown(p.first_name), shown(p.last_name), shown(p.email), shown(p.lms_id)]
            out.append([*cells, *[score(scores, a) for a in names], format_points(total)])
        return out
    if fmt == "canvas":
        return _canvas(maxima, rows, plan, headers)
    if fmt == "moodle":
        out = [["First name", "Last name", "ID number", "Email address", *headers]]
        for p, scores in rows:
            cells = [shown(p.first_name), shown(p.last_name), shown(p.lms_id), shown(p.email)]
            out.append([*cells, *[score(scores, a) for a in names]])
        return out
    raise GraderError(f"no export format {fmt!r} (one of {', '.join(FORMATS)})")


def _canvas(maxima: dict[str, float], rows, plan: ExportPlan, headers: list[str]) -> list[list[str]]:
    """Canvas's import: its identifying columns (from its own export, else the roster: never an id of the
    grader's in an SIS column), a ``Points Possible`` row, one row per student Canvas knows by ID."""
    names = list(maxima)
    fixed = plan.canvas.fixed if plan.canvas else ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    out = [
        [*fixed, *headers],
        ["Points Possible", *[""] * (len(fixed) - 1), *[format_points(maxima[a]) for a in names]],
    ]
    for p, scores in rows:
        if not p.lms_id:
            plan.left_out.append(f"{p.id}: no Canvas ID (give the roster's lms_id: `grader roster`)")
            continue
        if plan.canvas is not None:
            cells = plan.canvas.students.get(p.lms_id)
            if cells is None:
                plan.left_out.append(f"{p.id}: Canvas ID {p.lms_id} is not a student of the Canvas gradebook")
                continue
        else:
            person = plan.roster.get(p.id, p)
            name = ", ".join(x for x in (p.last_name, p.first_name) if x) or p.id
            cells = [name, p.lms_id, person.sis_user_id, person.sis_login_id, person.section]
        scored = ["" if scores[a] is None else format_points(scores[a]) for a in names]
        out.append([*[shown(c) for c in cells], *scored])
    return out


def write_csv(path: Path, lines: list[list[str]]) -> None:
    """The file whole or not at all: an interrupted export never leaves half a file for the LMS."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(lines)
    atomic_write(Path(path), buffer.getvalue())
