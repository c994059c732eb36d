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
  ID, Section``, one column per assignment, and the ``Points Possible`` row under the header;
- ``moodle``: Moodle's "Import grades from CSV file": ``First name, Last name, ID number, Email
  address``, one column per assignment (map "Email address" to "email address" when importing).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from grader.display import spreadsheet_cell as shown  # a CSV cell never run as a formula
from grader.engine.store import SAFE_ID, atomic_write
from grader.errors import GraderError
from grader.feedback import format_points

MAX_ROSTER_BYTES = 8 * 2**20
MAX_CELL = 200
FORMATS = ("csv", "canvas", "moodle")


@dataclass(frozen=True)
class Person:
    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_id: str = ""


def _cell(row: dict, key: str, line: int) -> str:
    value = (row.get(key) or "").strip()
    if len(value) > MAX_CELL:
        raise GraderError(f"roster line {line}: {key} is longer than {MAX_CELL} characters")
    if any(ord(c) < 32 for c in value):
        raise GraderError(f"roster line {line}: {key} holds a control character")
    return value


def read_roster(path: Path) -> list[Person]:
    """The people of a roster CSV file (see the module's docstring).

    Raises
    ------
    GraderError
        Naming the line and the column of the first problem: a missing ``id`` column, an unusable
        or repeated id, an over-long cell, a file that is not UTF-8 CSV.
    """
    path = Path(path)
    if not path.is_file():
        raise GraderError(f"roster not found: {path}")
    if path.stat().st_size > MAX_ROSTER_BYTES:
        raise GraderError(f"{path}: more than {MAX_ROSTER_BYTES // 2**20} MB; a roster is one line per student")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise GraderError(f"{path}: not UTF-8 text (save the roster as CSV UTF-8)") from None
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    if "id" not in columns:
        raise GraderError(
            f"{path}: the first line must name the columns, with id (and name or first_name, "
            f"last_name, email, lms_id); it has {', '.join(columns) or 'nothing'}"
        )
    reader.fieldnames = columns
    people, seen = [], set()
    for line, row in enumerate(reader, start=2):
        sid = _cell(row, "id", line)
        if not sid:
            continue
        if not SAFE_ID.match(sid):
            raise GraderError(
                f"roster line {line}: id {sid[:40]!r} is not a usable student id (letters, digits and . _ @ + - only)"
            )
        if sid in seen:
            raise GraderError(f"roster line {line}: id {sid} appears twice")
        seen.add(sid)
        first, last = _cell(row, "first_name", line), _cell(row, "last_name", line)
        name = _cell(row, "name", line)
        if name and not (first or last):
            first, _, last = name.rpartition(" ") if " " in name else (name, "", "")
        email = _cell(row, "email", line)
        if email and ("@" not in email or " " in email):
            raise GraderError(f"roster line {line}: email {email[:60]!r} is not an e-mail address")
        people.append(Person(sid, first, last, email, _cell(row, "lms_id", line)))
    if not people:
        raise GraderError(f"{path}: no student (a line per student under the header)")
    return people


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


def export_rows(fmt: str, maxima: dict[str, float], rows, titles: dict[str, str]) -> list[list[str]]:
    """The lines of the file ``fmt`` (one of :data:`FORMATS`) as lists of cells."""
    names = list(maxima)
    score = lambda scores, a: "" if scores[a] is None else format_points(scores[a])  # noqa: E731
    if fmt == "csv":
        out = [["student_id", "first_name", "last_name", "email", "lms_id", *names, "total"]]
        for p, scores in rows:
            total = sum(v for v in scores.values() if v is not None)
            out.append(
                [
                    p.id,
                    shown(p.first_name),
                    shown(p.last_name),
                    shown(p.email),
                    shown(p.lms_id),
                    *[score(scores, a) for a in names],
                    format_points(total),
                ]
            )
        return out
    if fmt == "canvas":
        out = [
            ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *[titles.get(a, a) for a in names]],
            ["Points Possible", "", "", "", "", *[format_points(maxima[a]) for a in names]],
        ]
        for p, scores in rows:
            name = ", ".join(x for x in (p.last_name, p.first_name) if x) or p.id
            out.append([shown(name), shown(p.lms_id), "", shown(p.id), "", *[score(scores, a) for a in names]])
        return out
    if fmt == "moodle":
        out = [["First name", "Last name", "ID number", "Email address", *[titles.get(a, a) for a in names]]]
        for p, scores in rows:
            out.append(
                [
                    shown(p.first_name),
                    shown(p.last_name),
                    shown(p.lms_id),
                    shown(p.email),
                    *[score(scores, a) for a in names],
                ]
            )
        return out
    raise GraderError(f"no export format {fmt!r} (one of {', '.join(FORMATS)})")


def write_csv(path: Path, lines: list[list[str]]) -> None:
    """The file whole or not at all: an interrupted export never leaves half a file for the LMS."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(lines)
    atomic_write(Path(path), buffer.getvalue())
