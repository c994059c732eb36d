"""Read a download into submissions, one per student: :func:`read_download`.

The phases, each its own function:

1. ``take``     every entry of the archive or folder (:mod:`grader.lms.source`): a file, furniture
                passed over, or refused with its reason;
2. ``shape``    which LMS wrote it (``--lms``, or detected from the names: the shape most names fit,
                when at least half do), and whether a folder wraps it (Brightspace's assignment
                folder, a re-zipped download);
3. ``parse``    each file's name read by that shape (:mod:`grader.lms.shapes`): whose it is, its own
                name, when the LMS says it was handed in; the LMS's furniture passed over;
4. ``gather``   the files of each LMS id into one submission, the latest by the LMS's own time or
                number (the earlier ones reported as such);
5. ``identify`` each submission's student id (:mod:`grader.lms.identity`), never one for two LMS ids.

Every entry ends in exactly one place: a :class:`Submission`'s files, :attr:`Download.passed_over`,
or :attr:`Download.left_out` with its reason and a fix that applies.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.errors import GraderError
from grader.lms.identity import student_ids
from grader.lms.roster import Roster
from grader.lms.shapes import LMS_SHAPES, Generic, Parsed, Shape, lms_shape, nfc
from grader.lms.source import JUNK, Budget, Entry, EntryRefused, NotAFile, Skipped, open_source
from grader.options import LMS_NAMES
from grader.untrusted import shown

ARCHIVES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".jar", ".whl", ".egg")
SHOWN = 120  # characters of an entry's name in a message
assert LMS_NAMES == ("auto", *LMS_SHAPES, "generic"), "grader.options.LMS_NAMES names every shape"


def course_zone(name: str | None) -> ZoneInfo:
    """The time zone of the times an LMS writes without one, as course.yaml names it (default UTC)."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise GraderError(f"unknown time zone {name!r} (an IANA name such as Europe/Paris)") from None


@dataclass
class SubmittedFile:
    """One file of a submission: the student's own name for it (no LMS prefix), and where it is."""

    name: str
    entry: Entry
    order: tuple = ()  # the greater is the later copy (the LMS's number for it, then the archive's)


@dataclass
class Submission:
    """One student's submission as the LMS wrote it.

    Attributes
    ----------
    lms, lms_id, display_name
        The LMS (``generic``: names given by the instructor), its own id of the student, and the name
        it shows (Unicode, as written: shown, never an id).
    student
        The grader's student id (:mod:`grader.lms.identity`).
    submitted_at
        When it was handed in, in UTC without a zone, as the LMS wrote it; None when the download does
        not say (Canvas, Moodle and names given by the instructor).
    late
        The LMS's own mark of a late submission (Canvas's ``LATE``).
    files
        Its files (:class:`SubmittedFile`), the latest copy of each.
    origins
        In a class folder: the top-level entries that are the student's whole submission (a folder, a
        ``.py`` file, notebooks), graded where they are.
    notes
        What the instructor should know about it (a name holding several dates, ...).
    """

    lms: str
    lms_id: str
    display_name: str
    files: list[SubmittedFile] = field(default_factory=list)
    student: str = ""
    submitted_at: datetime | None = None
    late: bool = False
    origins: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def who(self) -> str:
        """The student for a message: ``Zoë Müller (moodle 1005)``."""
        if self.lms == "generic":
            return shown(self.display_name, 60)
        return f"{shown(self.display_name, 60)} ({self.lms} {shown(self.lms_id, 40)})"


@dataclass(frozen=True)
class LeftOut:
    """An entry not collected: why, and what to do. ``by_rule``: left out by rule, with nothing to fix
    (an earlier attempt or copy of a file the download holds a later one of; a text the LMS keeps,
    not a file), as opposed to a problem."""

    entry: str
    reason: str
    fix: str = ""
    by_rule: bool = False

    def __str__(self) -> str:
        return f"{shown(self.entry, SHOWN)}: {self.reason}" + (f"; {self.fix}" if self.fix else "")


@dataclass
class Download:
    """What :func:`read_download` found, and the open download its files are read from.

    Use it as a context manager (or call :meth:`close`); :meth:`copy` and :meth:`read` read a
    :class:`SubmittedFile`'s bytes, bounded.
    """

    path: Path
    lms: str = "generic"
    detected: bool = False
    submissions: list[Submission] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    passed_over: list[tuple[str, str]] = field(default_factory=list)  # (entry, whose furniture)
    notes: list[str] = field(default_factory=list)
    entries: int = 0  # every entry of the download, folders and furniture included
    source: object = field(default=None, repr=False)

    @property
    def problems(self) -> list[LeftOut]:
        """What was left out for a problem (not an earlier attempt): the exit status says so."""
        return [x for x in self.left_out if not x.by_rule]

    @property
    def complete(self) -> bool:
        return not self.problems

    def refuse(self, entry: str, reason: str, fix: str = "", by_rule: bool = False) -> None:
        self.left_out.append(LeftOut(entry, reason, fix, by_rule))

    def copy(self, file: SubmittedFile, dest: Path, limit: int, budget: Budget) -> int:
        """Write ``file`` into the new file ``dest`` (0644, never through a link); its size.
        Raises :class:`~grader.lms.source.EntryRefused` when it is too large or unreadable."""
        return self.source.copy(file.entry, dest, limit, budget)

    def read(self, file: SubmittedFile, limit: int) -> bytes:
        return self.source.read(file.entry, limit)

    def close(self) -> None:
        if self.source is not None:
            self.source.close()

    def __enter__(self) -> "Download":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_download(
    path: Path,
    lms: str = "auto",
    *,
    name_regexp: str | None = None,
    time_zone: str | None = None,
    roster: Roster | None = None,
    assignments=(),
    class_folder: bool = False,
) -> Download:
    """The submissions of the LMS download at ``path`` (a ``.zip`` file or a folder).

    ``lms``: one of :data:`grader.options.LMS_NAMES` (``auto`` detects it from the names; ``generic``
    reads ``<student>_<anything>``, or ``name_regexp``). ``time_zone``: of the times the LMS writes
    (calendar.time_zone). ``roster``: who the students are (else each LMS's rule names them).
    ``assignments``: the course's assignment ids (``jack_ps4b.ipynb`` is jack's). ``class_folder``: a
    folder of ``grade-class`` whose top-level folders, ``.py`` files and notebooks are students'.

    Raises
    ------
    GraderError
        When the download cannot be read at all, or the arguments are wrong; anything wrong with one
        entry is in :attr:`Download.left_out` instead.
    """
    if lms not in LMS_NAMES:
        raise GraderError(f"no LMS download shape {lms!r}: one of {', '.join(LMS_NAMES)}")
    if name_regexp and lms not in ("auto", "generic"):
        raise GraderError(f"a pattern for the names and the {lms} shape are two ways to read them: give one")
    zone = course_zone(time_zone)
    source = open_source(Path(path))
    download = Download(Path(path), source=source)
    try:
        files = take(download)
        generic = Generic(name_regexp, assignments, whole=class_folder and source.kind == "folder")
        shape, files = choose_shape(download, lms, generic, files)
        shape.learn(source.read, files)
        parsed = parse(download, shape, files, lms)
        gather(download, parsed, zone)
        if generic.whole and shape is generic:
            empty_folders(download)
        download.notes += student_ids(download.submissions, roster)
        no_shared_ids(download)
    except BaseException:
        download.close()
        raise
    return download


# -- 1. take ------------------------------------------------------------------------------------------------
def take(download: Download) -> list[Entry]:
    """The download's files; furniture passed over and refused entries noted."""
    files = []
    for item in download.source.entries():
        download.entries += 1
        if isinstance(item, Skipped):
            if item.furniture:
                download.passed_over.append((item.name, item.reason))
            else:
                download.refuse(item.name, item.reason)
            continue
        files.append(item)
    return files


# -- 2. shape -----------------------------------------------------------------------------------------------
def unwrapped(files: list[Entry]) -> list[Entry] | None:
    """The files without the one folder that holds them all, or None when there is no such folder."""
    tops = {f.parts[0] for f in files}
    if len(tops) != 1 or any(len(f.parts) < 2 for f in files):
        return None
    return [dataclasses.replace(f, parts=f.parts[1:]) for f in files]


def fitting(shape: Shape, files: list[Entry]) -> int:
    return sum(1 for f in files if shape.fits(tuple(nfc(p) for p in f.parts)))


def choose_shape(download: Download, lms: str, generic: Generic, files: list[Entry]) -> tuple[Shape, list[Entry]]:
    """The shape that reads the download's names, and its files as that shape reads them."""
    if download.source.kind == "archive":  # a folder named like the archive holds (some of) it
        stem = download.path.stem
        files = [
            dataclasses.replace(f, parts=f.parts[1:]) if f.parts[0] == stem and len(f.parts) > 1 else f for f in files
        ]
    inner = unwrapped(files)
    if lms == "generic" or generic.custom:
        return generic, files
    candidates = [lms_shape(lms)] if lms in LMS_SHAPES else [lms_shape(name) for name in LMS_SHAPES]
    best, best_files, best_count = None, files, 0
    for shape in candidates:
        for variant in (files, inner) if inner is not None else (files,):
            count = fitting(shape, variant)
            if count > best_count and (lms != "auto" or 2 * count >= len(variant)):
                best, best_files, best_count = shape, variant, count
    if lms != "auto":
        download.lms = lms
        return best or candidates[0], best_files if best else files
    if best is None:
        return generic, files
    download.lms, download.detected = best.name, True
    return best, best_files


# -- 3. parse -----------------------------------------------------------------------------------------------
def not_shaped(shape: Shape, lms: str) -> tuple[str, str]:
    """(why an entry's name gives no student, what to do), as it applies to how the names were read."""
    if shape.lms and lms != "auto":
        return (
            f"its name is not shaped like a {shape.name} download's (e.g. {shape.example})",
            "if it is a student's file, rename it so and collect again",
        )
    if shape.lms:
        return (
            f"its name is not shaped like the rest of this {shape.name} download (e.g. {shape.example})",
            "rename it so, or collect it on its own with --lms generic",
        )
    if shape.custom:
        return "its name does not match --name-regexp", "change the expression, or rename the file"
    return (
        "its name gives no student",
        f"give the LMS with --lms ({', '.join(LMS_SHAPES)}) or the names' shape with --name-regexp "
        "'(?P<student_id>...)_(?P<file_id>...)', then run this command again",
    )


def parse(download: Download, shape: Shape, files: list[Entry], lms: str) -> list[tuple[Entry, Parsed]]:
    """Each file read by ``shape``: (entry, what its name says); the rest passed over or left out."""
    read = []
    for entry in files:
        parts = tuple(nfc(p) for p in entry.parts)
        furniture = shape.furniture(parts)
        if furniture:
            download.passed_over.append((entry.name, furniture))
            continue
        try:
            parsed = shape.parse(parts)
            if parsed is not None and parsed.origin is None and PurePosixPath(parsed.file).suffix.lower() in ARCHIVES:
                raise EntryRefused(
                    "an archive inside the archive (nested archives are never unpacked: ask for the notebook itself)"
                )
        except EntryRefused as exc:
            download.refuse(entry.name, str(exc), by_rule=isinstance(exc, NotAFile))
            continue
        if parsed is not None and parsed.origin is not None:  # where it is on disk, as spelled there
            parsed = dataclasses.replace(parsed, origin=entry.parts[0])
        if parsed is None and isinstance(shape, Generic) and shape.whole and len(parts) == 1:
            download.passed_over.append((entry.name, "not a submission (a folder, .py file or notebook per student)"))
        elif parsed is None:
            download.refuse(entry.name, *not_shaped(shape, lms))
        else:
            read.append((entry, parsed))
    return read


# -- 4. gather ----------------------------------------------------------------------------------------------
def utc(when: datetime | None, zone: ZoneInfo) -> datetime | None:
    """A time the LMS wrote in the course's zone, in UTC without a zone (as nbgrader keeps times)."""
    return None if when is None else when.replace(tzinfo=zone).astimezone(timezone.utc).replace(tzinfo=None)


def _described(key: tuple) -> str:
    when = next((k for k in key if isinstance(k, datetime)), None)
    return f"handed in {when:%Y-%m-%d %H:%M}" if when else "an earlier one"


def gather(download: Download, parsed: list[tuple[Entry, Parsed]], zone: ZoneInfo) -> None:
    """One submission per LMS id: the files of its latest submission; earlier ones reported as such."""
    by_id: dict[str, dict[tuple, list[tuple[Entry, Parsed]]]] = {}
    for entry, p in parsed:
        by_id.setdefault(p.lms_id, {}).setdefault(p.submission, []).append((entry, p))
    for lms_id, submissions in by_id.items():
        keys = sorted(submissions)
        for key in keys[:-1]:
            for entry, p in submissions[key]:
                download.refuse(
                    entry.name,
                    f"an earlier submission of {shown(p.display_name, 60)} ({_described(key)}); the latest "
                    f"({_described(keys[-1])}) is collected",
                    by_rule=True,
                )
        sub = _submission(download.lms, lms_id, submissions[keys[-1]], zone)
        if _one_origin(download, sub, submissions[keys[-1]]):
            download.submissions.append(sub)


def _submission(lms: str, lms_id: str, chosen: list[tuple[Entry, Parsed]], zone: ZoneInfo) -> Submission:
    first = chosen[0][1]
    sub = Submission(lms, lms_id, first.display_name, submitted_at=utc(first.when, zone))
    for entry, p in chosen:
        sub.files.append(SubmittedFile(p.file, entry, (*p.file_order, entry.stamp, entry.index)))
        sub.late = sub.late or p.late
        if p.note:
            sub.notes.append(f"{shown(entry.name, SHOWN)}: {p.note}")
        if p.origin and p.origin not in sub.origins:
            sub.origins.append(p.origin)
        if p.display_name != first.display_name:
            sub.notes.append(f"its files name it {first.display_name!r} and {p.display_name!r}")
    return sub


def _one_origin(download: Download, sub: Submission, chosen: list[tuple[Entry, Parsed]]) -> bool:
    """In a class folder a student is one folder, one ``.py`` file, or notebooks: anything else is two
    submissions, and grading either would be a guess (both are reported)."""
    if len(sub.origins) < 2 or all(o.endswith(".ipynb") for o in sub.origins):
        return True
    for entry, _ in chosen:
        download.refuse(
            entry.name,
            f"two submissions for {shown(sub.display_name)!r} ({' and '.join(shown(o) for o in sub.origins)}); "
            "neither is graded",
            "keep one of them",
        )
    return False


def empty_folders(download: Download) -> None:
    """In a class folder, a student's folder with no file in it is still a submission (graded: nothing)."""
    taken = {o for s in download.submissions for o in s.origins}
    taken |= {x.entry.split("/", 1)[0] for x in download.left_out}
    for child in sorted(download.path.iterdir()):
        if child.name in taken or child.name.startswith(".") or child.name in JUNK:
            continue
        if not child.is_dir() or child.is_symlink():
            continue
        name = nfc(child.name)
        same = next((s for s in download.submissions if s.lms_id == name), None)
        if same is None:
            download.submissions.append(Submission("generic", name, name, origins=[child.name]))
            continue
        download.submissions.remove(same)  # alice.py beside an empty alice/: two submissions
        reason = f"two submissions for {shown(name)!r} ({' and '.join(map(shown, [*same.origins, child.name]))})"
        for entry in [f.entry.name for f in same.files] + [child.name]:
            download.refuse(entry, reason + "; neither is graded", "keep one of them")


# -- 5. identify --------------------------------------------------------------------------------------------
def no_shared_ids(download: Download) -> None:
    """No student id for two LMS ids: such submissions are left out, both (a name's digest met another)."""
    by_student: dict[str, list[Submission]] = {}
    for sub in download.submissions:
        by_student.setdefault(sub.student, []).append(sub)
    for student, subs in by_student.items():
        if len(subs) < 2:
            continue
        for sub in subs:
            download.submissions.remove(sub)
            for f in sub.files:
                download.refuse(
                    f.entry.name,
                    f"{' and '.join(s.who for s in subs)} would both be {student}; neither is collected",
                    "give a roster (--roster) that names them apart",
                )
