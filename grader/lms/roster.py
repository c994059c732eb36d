"""The class roster: who the students are, by the grader's id and by their LMS's.

A roster is a CSV file with a header: ``id`` (the grader's student id: ``submitted/<id>/``, the
gradebook's), ``name`` (or ``first_name`` and ``last_name``), ``email``, ``lms_id`` (the LMS's own
id of the student: Canvas's user ``ID``, Brightspace's user number, Blackboard's username, Moodle's
``ID number``), and for Canvas's import ``sis_user_id``, ``sis_login_id``, ``section``. Its cells are
data from outside: each is bounded, ids must be usable student ids, and no two lines may share an
``id`` or an ``lms_id`` (two students would become one).

:meth:`Roster.match` files a submission of an LMS download under its student: by the LMS's id
(Canvas, Brightspace, Blackboard), or, for Moodle, whose downloads number participants per
assignment, by the full name Moodle writes, when exactly one line of the roster has it.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from grader.engine.store import SAFE_ID
from grader.errors import GraderError

MAX_ROSTER_BYTES = 8 * 2**20
MAX_CELL = 200
OPTIONAL = ("first_name", "last_name", "name", "email", "lms_id", "sis_user_id", "sis_login_id", "section")


@dataclass(frozen=True)
class Person:
    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""

    @property
    def full_name(self) -> str:
        return " ".join(x for x in (self.first_name, self.last_name) if x)


def _cell(row: dict, key: str, line: int) -> str:
    value = (row.get(key) or "").strip()
    if len(value) > MAX_CELL:
        raise GraderError(f"roster line {line}: {key} is longer than {MAX_CELL} characters")
    if any(ord(c) < 32 for c in value):
        raise GraderError(f"roster line {line}: {key} holds a control character")
    return value


def _text(path: Path) -> str:
    if not path.is_file():
        raise GraderError(f"roster not found: {path}")
    if path.stat().st_size > MAX_ROSTER_BYTES:
        raise GraderError(f"{path}: more than {MAX_ROSTER_BYTES // 2**20} MB; a roster is one line per student")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise GraderError(f"{path}: not UTF-8 text (save the roster as CSV UTF-8)") from None


def _person(row: dict, line: int) -> Person | None:
    sid = _cell(row, "id", line)
    if not sid:
        return None
    if not SAFE_ID.match(sid):
        raise GraderError(
            f"roster line {line}: id {sid[:40]!r} is not a usable student id (letters, digits and . _ @ + - only)"
        )
    first, last = _cell(row, "first_name", line), _cell(row, "last_name", line)
    name = _cell(row, "name", line)
    if name and not (first or last):
        first, _, last = name.rpartition(" ") if " " in name else (name, "", "")
    email = _cell(row, "email", line)
    if email and ("@" not in email or " " in email):
        raise GraderError(f"roster line {line}: email {email[:60]!r} is not an e-mail address")
    cells = {key: _cell(row, key, line) for key in ("lms_id", "sis_user_id", "sis_login_id", "section")}
    return Person(sid, first, last, email, **cells)


def read_roster(path: Path) -> list[Person]:
    """The people of a roster CSV file (see the module's docstring).

    Raises
    ------
    GraderError
        Naming the line and the column of the first problem: a missing ``id`` column, an unusable
        or repeated id or LMS id, an over-long cell, a file that is not UTF-8 CSV.
    """
    path = Path(path)
    reader = csv.DictReader(io.StringIO(_text(path)))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    if "id" not in columns:
        raise GraderError(
            f"{path}: the first line must name the columns, with id (and name or first_name, "
            f"last_name, email, lms_id); it has {', '.join(columns) or 'nothing'}"
        )
    reader.fieldnames = columns
    people: list[Person] = []
    ids: set[str] = set()
    lms_ids: dict[str, int] = {}
    for line, row in enumerate(reader, start=2):
        person = _person(row, line)
        if person is None:
            continue
        if person.id in ids:
            raise GraderError(f"roster line {line}: id {person.id} appears twice")
        if person.lms_id and person.lms_id in lms_ids:
            raise GraderError(
                f"roster line {line}: lms_id {person.lms_id} is also on line {lms_ids[person.lms_id]} "
                "(two students would become one)"
            )
        ids.add(person.id)
        if person.lms_id:
            lms_ids[person.lms_id] = line
        people.append(person)
    if not people:
        raise GraderError(f"{path}: no student (a line per student under the header)")
    return people


def same_name(name: str) -> str:
    """A name as two spellings of it compare: Unicode composed, case folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


class Roster:
    """The people of a roster, found by their LMS id or (Moodle) their full name. ``complete``: the whole
    class (a roster file), not only the students met so far (a gradebook's)."""

    def __init__(self, people: list[Person] = (), complete: bool = True):
        self.people = list(people)
        self.complete = complete  # the whole class (a roster file): a student it lacks is worth a note
        self.by_lms = {p.lms_id: p for p in self.people if p.lms_id}
        self.by_name: dict[str, list[Person]] = {}
        for p in self.people:
            if p.full_name:
                self.by_name.setdefault(same_name(p.full_name), []).append(p)

    def __bool__(self) -> bool:
        return bool(self.people)

    def match(self, lms: str, lms_id: str, display_name: str) -> tuple[Person | None, str]:
        """(the roster's person for this submission, or None and why not)."""
        if lms == "moodle":
            found = self.by_name.get(same_name(display_name), [])
            if len(found) == 1:
                return found[0], ""
            if found:
                return None, f"{len(found)} lines of the roster are named {display_name}"
            return None, f"no line of the roster is named {display_name} (Moodle's downloads match by name)"
        person = self.by_lms.get(lms_id)
        return (person, "") if person else (None, f"no line of the roster has lms_id {lms_id}")
