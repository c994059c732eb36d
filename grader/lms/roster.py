"""The class roster: who the students are, by the grader's id and by their LMS's.

A roster is a CSV file with a header: ``id`` (the grader's student id: ``submitted/<id>/``, the
gradebook's), ``name`` (or ``first_name`` and ``last_name``), ``email``, ``lms_id`` (the LMS's own
id of the student: Canvas's user ``ID``, Brightspace's user number, Blackboard's username, Moodle's
``ID number``), ``moodle_participants`` (Moodle's participant numbers of the student, one per
assignment, separated by spaces), and for Canvas's import ``sis_user_id``, ``sis_login_id``,
``section``. Its cells are data from outside: each is bounded, ids must be usable student ids, and no
two lines may share an ``id``, an ``lms_id`` or a participant number (two students would become one).

:meth:`Roster.match` files a submission of an LMS download under its student by the id the LMS
wrote into the download, never by a name (a display name is text the student can edit): Canvas's
user id, Brightspace's user number and Blackboard's username against ``lms_id``; Moodle's
participant number against ``moodle_participants``. Moodle writes no user id into its download,
only a number of the assignment's own for each participant (``Zoë Müller_1005_...``: the same in
every download of that assignment, another in every other assignment, never the same for two
people of one Moodle site); its ``ID number`` (``lms_id``, what its grade import matches) is not in
the download. A submission the roster has no id for is filed under the LMS's id instead
(:mod:`grader.lms.identity`), with a note saying which cell to fill.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.untrusted import shown

MAX_ROSTER_BYTES = 8 * 2**20
MAX_CELL = 200
MAX_PARTICIPANTS_CELL = 2000  # a number per assignment of a Moodle course
OPTIONAL = (
    "first_name",
    "last_name",
    "name",
    "email",
    "lms_id",
    "moodle_participants",
    "sis_user_id",
    "sis_login_id",
    "section",
)
WORKSHEET = (
    "Moodle's grading worksheet, Assignment > View all submissions > Grading action > Download grading "
    "worksheet, lists each participant's number ('Participant 1006') with their e-mail"
)


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
    moodle_participants: tuple[str, ...] = ()  # Moodle's participant numbers, one per assignment

    @property
    def full_name(self) -> str:
        return " ".join(x for x in (self.first_name, self.last_name) if x)


def _cell(row: dict, key: str, line: int, limit: int = MAX_CELL) -> str:
    value = (row.get(key) or "").strip()
    if len(value) > limit:
        raise GraderError(f"roster line {line}: {key} is longer than {limit} characters")
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
    return Person(sid, first, last, email, **cells, moodle_participants=_participants(row, line))


def _participants(row: dict, line: int) -> tuple[str, ...]:
    """The numbers of a ``moodle_participants`` cell (spaces, commas or semicolons between them)."""
    numbers = _cell(row, "moodle_participants", line, MAX_PARTICIPANTS_CELL).replace(",", " ").replace(";", " ")
    for number in numbers.split():
        if not (number.isascii() and number.isdigit()):
            raise GraderError(
                f"roster line {line}: moodle_participants holds {number[:40]!r}, not a participant number "
                f"(the digits of 'Participant 1006'; {WORKSHEET})"
            )
    return tuple(dict.fromkeys(numbers.split()))


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
    participants: dict[str, int] = {}
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
        for number in person.moodle_participants:
            if number in participants:
                raise GraderError(
                    f"roster line {line}: Moodle participant {number} is also on line {participants[number]} "
                    "(two students would become one)"
                )
            participants[number] = line
        ids.add(person.id)
        if person.lms_id:
            lms_ids[person.lms_id] = line
        people.append(person)
    if not people:
        raise GraderError(f"{path}: no student (a line per student under the header)")
    return people


class Roster:
    """The people of a roster, found by the id their LMS writes into its downloads (never by a name).
    ``complete``: the whole class (a roster file), not only the students met so far (a gradebook's)."""

    def __init__(self, people: list[Person] = (), complete: bool = True):
        self.people = list(people)
        self.complete = complete  # the whole class (a roster file): a student it lacks is worth a note
        # An id on two lines (a gradebook is not checked as a roster file is) files neither under it.
        self.by_lms = _unique((p.lms_id, p) for p in self.people if p.lms_id)
        self.by_participant = _unique((n, p) for p in self.people for n in p.moodle_participants)

    def __bool__(self) -> bool:
        return bool(self.people)

    def match(self, lms: str, lms_id: str) -> tuple[Person | None, str]:
        """(the roster's person whose id for ``lms`` is ``lms_id``, or None and why not)."""
        if lms == "moodle":
            found = self.by_participant.get(lms_id)
            what = f"Moodle participant {shown(lms_id, 40)} in its moodle_participants"
        else:
            found, what = self.by_lms.get(lms_id), f"lms_id {shown(lms_id, 40)}"
        if isinstance(found, Person):
            return found, ""
        if found:
            return None, f"{found} lines of the roster have {what}"
        return None, f"no line of the roster has {what}"


def _unique(pairs) -> dict[str, Person | int]:
    """id -> its person, or the number of people who share it (more than one)."""
    found: dict[str, list[Person]] = {}
    for key, person in pairs:
        found.setdefault(key, []).append(person)
    return {key: same[0] if len(same) == 1 else len(same) for key, same in found.items()}
