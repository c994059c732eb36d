"""How each LMS names the files of its "download all submissions", read from the fields it writes.

A shape turns one entry's path into a :class:`Parsed`: the LMS's own id of the student, the display
name, the student's own file name, and what orders a student's submissions, all read from fixed
fields the LMS writes, never from text a student can edit (a display name, an uploaded file's
name) when the two could be told apart only by that text. The shapes, as each LMS writes them
today:

- **Canvas** (Submissions > Download Submissions), flat:
  ``<sortable name>_[LATE_]<user id>_<attachment id>_<uploaded name>``, or ``anon_<id>`` in place
  of the name and user id when grading is anonymous. Canvas strips the name of everything but
  letters, digits and ``_``, lower-cases it and removes any ``_<digits>_`` from it, so the first
  ``_<digits>_<digits>_`` ends the name, unless a name ends in ``_<digits>``: such an entry can be
  read two ways and is refused with its reason. Text and link submissions
  (``..._text.html``, ``..._link.html``) are not files: reported. No time: Canvas dates every
  entry when it makes the zip; ``LATE`` is its own mark. A re-uploaded file is named ``x-1.ipynb``;
  the greater attachment id is the later upload.
- **Moodle** ("Download all submissions"): ``<Full Name>_<participant>_assignsubmission_file/<file>``
  (Moodle 4.1 and later, "in folders", the default), ``..._assignsubmission_file_/<file>`` (earlier
  versions) or ``..._assignsubmission_file_<file>`` (not in folders). Moodle turns ``_`` in a name
  into a space, so the first ``_`` ends the name. ``<participant>`` is the assignment's own number
  for the student (the same in every download of that assignment, another in other assignments).
  Online text (``assignsubmission_onlinetext``) is not a file: reported. No time in the names.
- **Blackboard Learn** (Grade Centre > Assignment File Download), flat:
  ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>`` and a receipt per attempt,
  ``<assignment>_<username>_attempt_<time>.txt``, whose first line ``Name: <Name> (<username>)``
  gives the display name and where the username starts (usernames may hold ``_``). The latest
  attempt is collected.
- **Brightspace** (Assignments > View Submissions > Download): a folder per submission,
  ``<n>-<user> - <Name> - <Mon D, YYYY HMM AM>/<file>``, under a folder named like the assignment or
  not, with the LMS's ``index.html``; or the older flat ``<n>-<user> - <Name> - <date> - <file>``.
  The folder's date is its last field, so a name holding ``- <date> -`` changes nothing; in the flat
  shape both sides of the date are a student's text, so when several dates can be read the latest
  is taken (a date written into a name can only make its own submission later) and the entry says
  so. ``<user>`` is taken as the student's id; submissions are ordered by their date, then ``<n>``.
- **generic**: files named by the instructor, ``<student>_<anything>``, ``<student>.<ext>``,
  ``<student>/<file>`` (or a regular expression with ``student_id`` and ``file_id`` groups); for a
  class folder (``grade-class``), each top-level folder, ``.py`` file or notebook
  ``<student>[_<assignment>].ipynb`` is a student's.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from grader.errors import GraderError
from grader.lms.source import Entry, EntryRefused, NotAFile

MAX_RECEIPT_BYTES = 64 * 1024


@dataclass(frozen=True)
class Parsed:
    """What one entry's path says: whose file it is and where it goes.

    ``submission`` orders one student's submissions (the greatest is the latest; ``()`` when the
    download holds one per student); ``file_order`` orders two copies of one file within a
    submission. ``when`` is the submission time as the LMS wrote it (no zone: the course's).
    ``origin`` (a class folder only): the student's own top-level entry, graded where it is.
    """

    lms_id: str
    display_name: str
    file: str
    submission: tuple = ()
    file_order: tuple = ()
    when: datetime | None = None
    late: bool = False
    note: str = ""
    origin: str | None = None


def nfc(text: str) -> str:
    """One spelling of a name (a zip made on macOS decomposes accents)."""
    return unicodedata.normalize("NFC", text)


class Shape:
    """One LMS's download shape. :meth:`parse` returns None for a path not shaped like it, raises
    :class:`EntryRefused` for one shaped like it that cannot be collected; :meth:`furniture` names
    the LMS's own files (receipts, index pages), passed over."""

    name = ""
    example = ""
    lms = True  # an LMS's shape, as opposed to names given by the instructor

    def parse(self, parts: tuple[str, ...]) -> Parsed | None:  # pragma: no cover - every shape has its own
        raise NotImplementedError

    def furniture(self, parts: tuple[str, ...]) -> str | None:
        return None

    def learn(self, read, entries: list[Entry]) -> None:
        """Read what the LMS's own files tell before the names are parsed (``read(entry, limit)``)."""

    def fits(self, parts: tuple[str, ...]) -> bool:
        """Is this path shaped like this LMS's (a student's file, a refused one, or furniture)?"""
        if self.furniture(parts):
            return True
        try:
            return self.parse(parts) is not None
        except EntryRefused:
            return True


# -- Canvas ------------------------------------------------------------------------------------------------
CANVAS_FIELDS = re.compile(r"(?=_(?:(?P<late>LATE|late)_)?(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)$)")
CANVAS_ANON = re.compile(r"^(?:(?P<late>LATE)_)?anon_(?P<anon>[A-Za-z0-9]+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_TEXT = re.compile(r"^(?:\w+?_)?(?:LATE_|late_)?(?:\d+|anon_[A-Za-z0-9]+)_(?:text|link)\.html$")


class Canvas(Shape):
    name = "canvas"
    example = "smithjohn_LATE_2001_910001_ps4b.ipynb"

    def parse(self, parts):
        if len(parts) != 1:
            return None
        name = parts[0]
        anon = CANVAS_ANON.match(name)
        if anon:
            return Parsed(
                f"anon_{anon['anon']}",
                f"anonymous {anon['anon']}",
                anon["file"],
                file_order=(int(anon["attachment"]),),
                late=bool(anon["late"]),
            )
        readings = [r for r in map(self._reading, CANVAS_FIELDS.finditer(name)) if r is not None]
        if len(readings) > 1:
            users = " or ".join(f"user {r.lms_id}'s" for r in readings)
            raise EntryRefused(
                f"its name can be read as {users} (a Canvas name never holds _<digits>_, but one may end in "
                "_<digits>): rename it <name>_<user id>_<number>_<file> for the right user and collect again"
            )
        if readings:
            return readings[0]
        if CANVAS_TEXT.match(name):
            raise NotAFile("a text entry or web address handed in on Canvas, not a file: read it in SpeedGrader")
        return None

    @staticmethod
    def _reading(match) -> Parsed | None:
        prefix = match.string[: match.start()]
        # Canvas's name: word characters only, lower case, no _<digits>_ (and a LATE mark is no name's end).
        if not re.fullmatch(r"\w+", prefix) or prefix != prefix.lower():
            return None
        if re.search(r"_\d+_", prefix) or prefix.endswith("_late"):
            return None
        return Parsed(
            match["user"],
            nfc(prefix),
            match["file"],
            file_order=(int(match["attachment"]),),
            late=bool(match["late"]),
        )


# -- Moodle ------------------------------------------------------------------------------------------------
MOODLE = re.compile(r"^(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?P<rest>_.*|)$")


class Moodle(Shape):
    name = "moodle"
    example = "Zoë Müller_1005_assignsubmission_file/ps4b.ipynb"

    def parse(self, parts):
        match = MOODLE.match(parts[0])
        if not match:
            return None
        rest = match["rest"]
        if len(parts) > 1:  # in folders: "_assignsubmission_file/" (4.1 and later) or "..._file_/"
            if rest not in ("", "_"):
                return None
            file = "/".join(parts[1:])
        elif len(rest) > 1:  # not in folders: "..._assignsubmission_file_<file>"
            file = rest[1:]
        else:
            return None
        if match["plugin"] != "file":
            raise NotAFile(
                f"Moodle's {match['plugin']} of this submission (such as online text), not a file: read it in Moodle"
            )
        return Parsed(match["id"], nfc(match["name"]), file)


# -- Blackboard --------------------------------------------------------------------------------------------
BLACKBOARD = re.compile(
    r"^(?P<head>.+?)_attempt_(?P<time>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<file>.+)|(?P<receipt>\.txt))$"
)
RECEIPT_NAME = re.compile(r"^Name: (?P<name>.+) \((?P<user>[^()\s]+)\)\s*$")


class Blackboard(Shape):
    name = "blackboard"
    example = "Problem Set 4b_fmiller_attempt_2026-12-01-22-30-00_ps4b.ipynb"

    def __init__(self):
        self.receipts: dict[str, tuple[str, str]] = {}  # head -> (username, name) from the attempt's receipt

    def furniture(self, parts):
        match = BLACKBOARD.match(parts[-1]) if len(parts) == 1 else None
        return "Blackboard's receipt of an attempt" if match and match["receipt"] else None

    def learn(self, read, entries):
        for entry in entries:
            match = BLACKBOARD.match(entry.parts[-1]) if len(entry.parts) == 1 else None
            if not match or not match["receipt"]:
                continue
            try:
                first = read(entry, MAX_RECEIPT_BYTES).decode("utf-8", "replace").splitlines()[:1]
            except EntryRefused:
                continue
            name = RECEIPT_NAME.match(first[0]) if first else None
            if name and match["head"].endswith("_" + name["user"]):
                self.receipts[match["head"]] = (name["user"], nfc(name["name"]))

    def parse(self, parts):
        match = BLACKBOARD.match(parts[0]) if len(parts) == 1 else None
        if not match or match["receipt"]:
            return None
        head = match["head"]
        user, name = self.receipts.get(head, (head.rpartition("_")[2], ""))
        if not head.removesuffix(user).endswith("_") or head == "_" + user:
            raise EntryRefused("its name gives no username before _attempt_")
        try:
            when = datetime.strptime(match["time"], "%Y-%m-%d-%H-%M-%S")
        except ValueError:
            raise EntryRefused(f"its attempt time {match['time']!r} is not a date") from None
        return Parsed(user, name or user, match["file"], submission=(when,), when=when)


# -- Brightspace -------------------------------------------------------------------------------------------
DATE = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4} \d{1,2}:?\d{2} [AP]M"
BRIGHTSPACE_FOLDER = re.compile(rf"^(?P<n>\d+)-(?P<user>\d+) - (?P<name>.+) - (?P<date>{DATE})$")
BRIGHTSPACE_HEAD = re.compile(r"^(?P<n>\d+)-(?P<user>\d+) - ")
BRIGHTSPACE_DATES = re.compile(rf"(?= - (?P<date>{DATE}) - )")
BRIGHTSPACE_TIME = re.compile(r"^(?P<day>\w{3} \d{1,2}, \d{4}) (?P<h>\d{1,2}):?(?P<m>\d{2}) (?P<ampm>[AP]M)$")


def brightspace_time(text: str) -> datetime:
    """``Oct 10, 2025 1022 AM`` (or ``1:05 PM``, as older versions wrote it); ValueError if not a date."""
    match = BRIGHTSPACE_TIME.match(text)
    if not match:
        raise ValueError(text)
    return datetime.strptime(f"{match['day']} {match['h']}:{match['m']} {match['ampm']}", "%b %d, %Y %I:%M %p")


class Brightspace(Shape):
    name = "brightspace"
    example = "39786-640693 - Aiden Rodriguez - Oct 10, 2025 1022 AM/ps4b.ipynb"

    def furniture(self, parts):
        return "Brightspace's index of the download" if parts == ("index.html",) else None

    def parse(self, parts):
        folder = BRIGHTSPACE_FOLDER.match(parts[0]) if len(parts) > 1 else None
        if folder:
            return self._parsed(folder["n"], folder["user"], folder["name"], [folder["date"]], "/".join(parts[1:]))
        head = BRIGHTSPACE_HEAD.match(parts[0]) if len(parts) == 1 else None
        if not head:
            return None
        rest = parts[0][head.end() :]
        found = [m for m in BRIGHTSPACE_DATES.finditer(rest) if m.start() > 0]
        if not found:
            return None
        # Both sides of the date are a student's text: the latest date read is taken, so a date written
        # into a name or a file name can only make its own submission later.
        latest = max(found, key=lambda m: (self._time(m["date"]), m.start()))
        name, file = rest[: latest.start()], rest[latest.start() + len(latest["date"]) + 6 :]
        parsed = self._parsed(head["n"], head["user"], name, [m["date"] for m in found], file, latest["date"])
        return parsed

    def _parsed(self, n, user, name, dates, file, date=None) -> Parsed:
        date = date or dates[-1]
        when = self._time(date)
        note = ""
        if len(set(dates)) > 1:
            note = f"its name holds {len(dates)} dates ({'; '.join(dates)}): the latest, {date}, is taken"
        return Parsed(user, nfc(name), file, submission=(when, int(n)), when=when, note=note)

    @staticmethod
    def _time(text: str) -> datetime:
        try:
            return brightspace_time(text)
        except ValueError:
            raise EntryRefused(f"its date {text!r} is not a date") from None


# -- names given by the instructor -------------------------------------------------------------------------
DEFAULT_PATTERN = r"^(?P<student_id>[^_]+?)(?:_(?P<file_id>.+))?$"


def name_pattern(text: str) -> re.Pattern:
    """The regular expression ``text`` that reads a student from a file name (a ``student_id`` group).

    Raises
    ------
    GraderError
        When it is no regular expression, or has no ``student_id`` group.
    """
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise GraderError(f"{text!r} is not a regular expression ({exc})") from None
    if "student_id" not in pattern.groupindex:
        raise GraderError(f"{text!r} has no (?P<student_id>...) group to read the student from")
    return pattern


class Generic(Shape):
    """``<student>_<anything>``, ``<student>.<ext>`` or ``<student>/<file>`` (an archive the instructor made);
    with ``whole`` (a class folder): each top-level folder, ``.py`` file or notebook is a student's."""

    name = "generic"
    example = "alice_ps4b.ipynb, alice.ipynb or alice/ps4b.ipynb"
    lms = False

    def __init__(self, name_regexp: str | None = None, assignments=(), whole: bool = False):
        self.pattern = name_pattern(name_regexp or DEFAULT_PATTERN)
        self.custom = bool(name_regexp)
        self.assignments = sorted(assignments, key=len, reverse=True)
        self.whole = whole

    def parse(self, parts):
        if len(parts) > 1:
            return Parsed(nfc(parts[0]), nfc(parts[0]), "/".join(parts[1:]), origin=parts[0] if self.whole else None)
        name = parts[0]
        path = PurePosixPath(name)
        if self.whole:
            if path.suffix == ".py":
                return Parsed(nfc(path.stem), nfc(path.stem), name, origin=name)
            if path.suffix == ".ipynb":
                student = self._assignment_student(path.stem) or path.stem
                return Parsed(nfc(student), nfc(student), name, origin=name)
            return None
        student = None if self.custom else self._assignment_student(path.stem)
        if student:
            return Parsed(nfc(student), nfc(student), name)
        match = self.pattern.match(path.stem)
        if not match or not match["student_id"]:
            return None
        file = (match.groupdict().get("file_id") or path.stem) + path.suffix
        return Parsed(nfc(match["student_id"]), nfc(match["student_id"]), file)

    def _assignment_student(self, stem: str) -> str | None:
        """``jack_ps4b`` -> ``jack``: the files of a course's assignments are named so."""
        for assignment in self.assignments:
            if stem.endswith("_" + assignment) and len(stem) > len(assignment) + 1:
                return stem[: -len(assignment) - 1]
        return None


LMS_SHAPES = {shape.name: shape for shape in (Canvas, Moodle, Blackboard, Brightspace)}


def lms_shape(name: str) -> Shape:
    return LMS_SHAPES[name]()
