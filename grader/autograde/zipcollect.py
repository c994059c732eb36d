"""Read an LMS download (a zip of notebooks named by student) into ``submitted/``.

Every entry of the archive is a student's file, so every byte of it is hostile: the
archive is read here, with :mod:`zipfile`, streaming and bounded, instead of by
``nbgrader zip_collect`` (which unpacks archives found inside the archive, takes
any folder name as a student id and applies the entries' mode bits, setuid
included). The LMS shapes it understands:

- ``<student>_<anything>.ipynb`` or ``<student>.ipynb`` at the top (the notebook), the
  student read from the file name by ``--name-regexp`` (default :data:`DEFAULT_PATTERN`:
  everything up to the first ``_``);
- ``<student>/<file>`` (one folder per student, e.g. a lab's notebook and modules);
- either of them inside one folder named like the archive (``ps4b_submissions/...``).

The LMSs' own download shapes are built in (:data:`LMS_SHAPES`, picked with ``--lms NAME`` or
detected from the names): Canvas (``<login>_[LATE_]<user id>_<submission id>_<file>``), Moodle
(``<Full Name>_<id>_assignsubmission_file_[/]<file>``), Blackboard
(``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>``) and Brightspace
(``<id>-<id> - <Full Name> - <Mon D, YYYY HMM AM> - <file>``). A student id is the login the
name carries, else the full name made an id (``Frank Miller`` -> ``frank.miller``). The
submission time (from the name, else the time the archive gives the file, in the course's time
zone) is written to nbgrader's ``timestamp.txt``, so nbgrader's late penalties apply; Canvas's
``LATE`` mark is reported.

When an assignment has a single notebook, a notebook with any other name is collected
under the notebook's release name (LMSs rename uploads). A ``.py`` file is collected
when it is one of the assignment's student modules. Each student's files replace
their ``submitted/<student>/<assignment>/`` (files 0644, folders 0755, whatever the
archive says).

An entry that does not fit costs that entry only, with a message naming it: a nested
archive (never unpacked), a link, an absolute name or one with ``..``, a name that
gives no usable student id, a second copy of a file (the newest is kept), anything
over the size limits (:data:`MAX_ENTRY_BYTES` per file, :data:`MAX_TOTAL_BYTES` in
all, :data:`MAX_RATIO` compression, :data:`MAX_ENTRIES` entries).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import unicodedata
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.notebooks.extract import MAX_CELL_CHARS, MAX_NOTEBOOK_BYTES
from grader.options import LMS_NAMES
from grader.untrusted import shown

DEFAULT_PATTERN = r"^(?P<student_id>[A-Za-z0-9.@-]+?)(?:_(?P<file_id>.+))?$"
MAX_ENTRIES = 20_000
MAX_ENTRY_BYTES = MAX_NOTEBOOK_BYTES  # a notebook; a .py module is bounded by MAX_CELL_CHARS
MAX_TOTAL_BYTES = 4 * 2**30
MAX_RATIO = 200  # uncompressed / compressed, for entries over 1 MiB (a notebook compresses about 5x)
ARCHIVES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".jar", ".whl", ".egg")
JUNK = ("__MACOSX", ".ipynb_checkpoints", "__pycache__")
CHUNK = 1 << 16
MAX_PROBLEMS = 200  # messages printed; the rest are counted


@dataclass(frozen=True)
class LmsShape:
    """How one LMS names the files of its "download all submissions" archive.

    ``pattern`` is matched against an entry's path (``/``-separated, without a top folder named
    like the archive). Its groups: ``student_id`` (a login) or ``name`` (a full name, made an id),
    ``file_id`` (the student's own file name), and optionally ``lms_id``, ``late`` and ``time``
    (read with ``time_format``). Entries matching ``own_files`` are the LMS's (receipts, an index
    page): passed over silently.
    """

    name: str
    pattern: re.Pattern
    example: str
    time_format: str | None = None
    own_files: re.Pattern | None = None


LMS_SHAPES = {
    shape.name: shape
    for shape in (
        # Canvas: Submissions > Download Submissions; "LATE_" after the login when handed in late;
        # a resubmitted file gets "-1", "-2" before its extension.
        LmsShape(
            "canvas",
            re.compile(r"^(?P<student_id>[^_/]+)_(?P<late>LATE_)?(?P<lms_id>\d+)_\d+_(?P<file_id>[^/]+)$"),
            "millerfrank_LATE_1234_567890_ps4a.ipynb",
        ),
        # Moodle: "Download all submissions", in folders (the default) or flat; online text is not a file.
        LmsShape(
            "moodle",
            re.compile(r"^(?P<name>[^/_]+)_(?P<lms_id>\d+)_assignsubmission_file_/?(?P<file_id>[^/]+)$"),
            "Frank Miller_1234_assignsubmission_file_/ps4a.ipynb",
            own_files=re.compile(r"_assignsubmission_(?!file_)[a-z]+_/?[^/]*$"),
        ),
        # Blackboard Learn: Grade Centre > Assignment File Download; a .txt receipt per attempt.
        LmsShape(
            "blackboard",
            re.compile(
                r"^(?P<assignment>[^/]+?)_(?P<student_id>[^_/]+)_attempt_"
                r"(?P<time>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)_(?P<file_id>[^/]+)$"
            ),
            "ps4a_fmiller_attempt_2026-12-01-22-30-00_ps4a.ipynb",
            time_format="%Y-%m-%d-%H-%M-%S",
            own_files=re.compile(r"_attempt_\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.txt$"),
        ),
        # Brightspace (D2L): Assignments > View Submissions > Download; an index.html of the download.
        LmsShape(
            "brightspace",
            re.compile(
                r"^(?P<submission>\d+)-(?P<lms_id>\d+) - (?P<name>[^/]+?) - "
                r"(?P<time>[A-Z][a-z]{2} \d{1,2}, \d{4} \d{3,4} [AP]M)(?: - |/)"
                r"(?P<file_id>[^/]+)$"
            ),
            "123456-7890 - Frank Miller - Dec 1, 2026 1030 PM - ps4a.ipynb",
            time_format="%b %d, %Y %I%M %p",
            own_files=re.compile(r"^index\.html$"),
        ),
    )
}
assert LMS_NAMES == ("auto", *LMS_SHAPES, "generic"), "grader.options.LMS_NAMES names every shape"


def name_to_id(name: str) -> str:
    """A student id from a full name as an LMS writes it: ``Frank Miller`` -> ``frank.miller``
    (accents dropped, anything but letters and digits a dot)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", ".", ascii_name.lower()).strip(".")


def course_zone(name: str | None) -> ZoneInfo:
    """The time zone of times without one (archive entries, names), as course.yaml names it."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise GraderError(f"unknown time zone {name!r} (an IANA name such as Europe/Paris)") from None


@dataclass(frozen=True)
class LmsDownload:
    """An LMS download to collect (``--zip``) and how its file names give the students.

    ``lms`` names the download's shape (one of :data:`LMS_NAMES`; ``auto`` detects it,
    ``generic`` is ``<student>_<anything>`` read with ``name_regexp``, which also implies
    ``generic``).
    """

    archive: Path
    lms: str = "auto"
    name_regexp: str | None = None


@dataclass
class Collected:
    """What :func:`collect_zip` did: files written per student, and a message per entry left out."""

    students: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    lms: str = "generic"  # the shape the names were read with
    detected: bool = False  # chosen from the names (no --lms)
    late: list[str] = field(default_factory=list)  # students the LMS marked late
    times: dict[str, datetime] = field(default_factory=dict)  # student -> submission time (UTC, naive)
    unnamed: int = 0  # entries whose name gave no student
    # students who handed in modules and no notebook: the release notebook stands in for theirs
    stand_in: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        return sum(len(files) for files in self.students.values())


class EntryRefused(Exception):
    """This entry is not collected (the reason is the message)."""


def entry_parts(info: zipfile.ZipInfo) -> list[str] | None:
    """The path components of an entry, or None for an entry to pass over silently (folders,
    macOS metadata, hidden files, checkpoints)."""
    name = info.filename.replace("\\", "/")
    if name.endswith("/"):
        return None
    if "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise EntryRefused("an absolute name")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise EntryRefused("a name that climbs out of its folder (..)")
    if not parts or any(p.startswith(".") or p in JUNK for p in parts):
        return None
    kind = stat.S_IFMT(info.external_attr >> 16)  # 0 when the archiver wrote permission bits only
    if info.create_system == 3 and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise EntryRefused("a symbolic link" if kind == stat.S_IFLNK else "not a regular file")
    if info.flag_bits & 0x1:
        raise EntryRefused("encrypted")
    return parts


class Collector:
    """Where each entry goes: ``(student, path in the submission)``, from the LMS shapes above."""

    def __init__(
        self,
        archive_stem: str,
        notebooks: list[str],
        modules: list[str],
        name_regexp: str | None,
        lms: LmsShape | None = None,
        zone: ZoneInfo | None = None,
        exercise_modules: list[str] = (),
    ):
        self.archive_stem = archive_stem
        self.exercise_modules = set(exercise_modules)  # modules whose exercises are graded from the notebook
        self.notebooks = list(notebooks)
        self.modules = {PurePosixPath(m).name: m for m in modules}
        self.lms, self.zone = lms, zone or ZoneInfo("UTC")
        self.late: set[str] = set()
        self.names: dict[str, set[str]] = {}  # student id made from a name -> the LMS ids giving it
        try:
            self.pattern = re.compile(name_regexp or DEFAULT_PATTERN)
        except re.error as exc:
            raise GraderError(f"--name-regexp is not a regular expression: {exc}") from None
        if "student_id" not in self.pattern.groupindex:
            raise GraderError("--name-regexp needs a (?P<student_id>...) group")

    def strip(self, parts: list[str]) -> list[str]:
        return parts[1:] if len(parts) > 1 and parts[0] == self.archive_stem else parts

    def own_file(self, parts: list[str]) -> bool:
        """One of the LMS's own files (a receipt, an index page): not a student's."""
        own = self.lms.own_files if self.lms else None
        return bool(own and own.search("/".join(self.strip(parts))))

    def place(self, parts: list[str], info: zipfile.ZipInfo | None = None) -> tuple[str, str, datetime | None]:
        """(student, path in the submission, submission time in UTC or None)."""
        parts = self.strip(parts)
        name = parts[-1]
        suffix = PurePosixPath(name).suffix.lower()
        if suffix in ARCHIVES:
            raise EntryRefused(
                "an archive inside the archive (nested archives are never unpacked: ask for the notebook itself)"
            )
        when = None
        if self.lms is not None:
            match = self.lms.pattern.match("/".join(parts))
            if not match:
                raise EntryRefused(
                    f"its name is not shaped like a {self.lms.name} download's (e.g. {self.lms.example})"
                )
            groups = match.groupdict()
            student = groups.get("student_id") or name_to_id(groups.get("name") or "")
            if groups.get("name"):
                self.names.setdefault(student, set()).add(groups.get("lms_id") or groups["name"])
            # A resubmission's "-1" (Canvas) is no part of the file's name.
            file_id = re.sub(r"-\d+(?=\.[A-Za-z]+$)", "", groups["file_id"])
            if groups.get("late"):
                self.late.add(student)
            if groups.get("time") and self.lms.time_format:
                try:
                    when = datetime.strptime(groups["time"], self.lms.time_format)
                except ValueError:
                    raise EntryRefused(f"its time {groups['time']!r} is not a date") from None
        else:
            if len(parts) > 2:
                raise EntryRefused("in a sub-folder of a student's folder (only <student>/<file> is collected)")
            if len(parts) == 2:
                student, file_id = parts
            else:
                stem = PurePosixPath(name).stem
                match = self.pattern.match(stem)
                if not match or not match.group("student_id"):
                    raise EntryRefused("its name gives no student id")
                student = match.group("student_id")
                file_id = (match.groupdict().get("file_id") or stem) + suffix
        if when is None and info is not None:
            try:
                when = datetime(*info.date_time)  # the time the archive gives the file
            except ValueError:
                when = None
        if when is not None:  # nbgrader keeps times in UTC
            when = when.replace(tzinfo=self.zone).astimezone(timezone.utc).replace(tzinfo=None)
        if not SAFE_ID.match(student):
            raise EntryRefused(
                f"{shown(student, 40)!r} is not a usable student id (letters, digits and . _ @ + - only, at most 100)"
            )
        if suffix == ".ipynb":
            if file_id in self.notebooks:
                return student, file_id, when
            if len(self.notebooks) == 1:
                return student, self.notebooks[0], when
            raise EntryRefused(f"not one of the assignment's notebooks ({', '.join(self.notebooks)})")
        if suffix == ".py" and PurePosixPath(file_id).name in self.modules:
            return student, self.modules[PurePosixPath(file_id).name], when
        if suffix == ".py" and PurePosixPath(file_id).stem in self.exercise_modules:
            # A module of exercises the notebook holds: kept beside it; per function, the source that
            # implements it is graded (grader.notebooks.extract).
            return student, PurePosixPath(file_id).stem + ".py", when
        raise EntryRefused("not a notebook or module of the assignment")


def detect_lms(names: list[str], archive_stem: str) -> LmsShape | None:
    """The LMS whose download shape fits most of ``names`` (entry paths), if it fits at least half."""
    paths = []
    for name in names:
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
        if parts and parts[0] == archive_stem and len(parts) > 1:
            parts = parts[1:]
        if parts and not name.endswith("/") and not any(p.startswith(".") or p in JUNK for p in parts):
            paths.append("/".join(parts))
    best, fits = None, 0
    for shape in LMS_SHAPES.values():
        mine = [p for p in paths if not (shape.own_files and shape.own_files.search(p))]
        count = sum(1 for p in mine if shape.pattern.match(p))
        if count > fits and 2 * count >= len(mine):
            best, fits = shape, count
    return best


def _copy_bounded(archive: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, limit: int) -> int:
    """Stream one entry into a new file ``dest`` (0644), stopping at ``limit`` bytes; its size."""
    if info.file_size > limit:
        raise EntryRefused(f"{info.file_size / 2**20:.1f} MB, more than the {limit / 2**20:g} MB a file may have")
    if info.file_size > 2**20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise EntryRefused(f"compressed {info.file_size // max(info.compress_size, 1)} to 1 (a zip bomb?)")
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    written = 0
    try:
        with os.fdopen(fd, "wb") as out, archive.open(info) as source:
            os.fchmod(out.fileno(), 0o644)  # whatever the umask and the archive say
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > limit:  # the header lied about the size
                    raise EntryRefused(f"more than the {limit / 2**20:g} MB a file may have")
                out.write(chunk)
    except (EntryRefused, zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        dest.unlink(missing_ok=True)
        raise exc if isinstance(exc, EntryRefused) else EntryRefused(f"unreadable ({shown(str(exc), 100)})")
    return written


def collect_zip(
    course_dir: Path,
    assignment: str,
    download: LmsDownload,
    notebooks: list[str],
    modules: list[str] = (),
    time_zone: str | None = None,
    exercise_modules: list[str] = (),
) -> Collected:
    """Collect ``download`` into ``<course_dir>/submitted/<student>/<assignment>/``.

    ``notebooks`` are the assignment's notebook names, ``modules`` its student modules
    (both as ``grader build`` recorded them). Times without a zone are in ``time_zone``
    (IANA name; UTC by default). ``exercise_modules`` (names without ``.py``) are the modules whose
    exercises the notebook holds: such a ``.py`` is refused with what to do instead. The files are first
    written to ``downloaded/<assignment>/extracted/`` (emptied), then each collected student's folder,
    with its ``timestamp.txt``, replaces their submission.

    Raises
    ------
    GraderError
        When the archive is not a readable zip file or ``name_regexp`` is unusable;
        anything wrong with one entry is a message in :attr:`Collected.problems` instead.
    """
    archive, lms, name_regexp = Path(download.archive), download.lms, download.name_regexp
    if not archive.is_file():
        raise GraderError(f"LMS download not found: {archive}")
    if archive.suffix.lower() != ".zip":
        raise GraderError(f"{archive.name}: an LMS download is a .zip file")
    if lms not in LMS_NAMES:
        raise GraderError(f"--lms {lms!r}: one of {', '.join(LMS_NAMES)}")
    if name_regexp and lms not in ("auto", "generic"):
        raise GraderError("--name-regexp and --lms name two ways to read the names: give one")
    zone = course_zone(time_zone)
    shape, detected = None, False
    if lms in LMS_SHAPES:
        shape = LMS_SHAPES[lms]
    elif lms == "auto" and not name_regexp:
        try:
            with zipfile.ZipFile(archive) as zf:
                shape = detect_lms(zf.namelist()[:MAX_ENTRIES], archive.stem)
        except (zipfile.BadZipFile, OSError) as exc:
            raise GraderError(f"{archive.name} is not a readable zip file ({exc})") from None
        detected = shape is not None
    collector = Collector(archive.stem, notebooks, modules, name_regexp, shape, zone, exercise_modules)
    staging = Path(course_dir) / "downloaded" / assignment / "extracted"
    if staging.is_symlink():
        staging.unlink()
    elif staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True, mode=0o755)
    collected = Collected(lms=shape.name if shape else "generic", detected=detected)
    chosen: dict[tuple[str, str], zipfile.ZipInfo] = {}
    times: dict[tuple[str, str], datetime | None] = {}
    duplicates: list[tuple[str, str]] = []  # (student, message) for copies of a file left out
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = zf.infolist()
            if len(entries) > MAX_ENTRIES:
                collected.problems.append(
                    f"the archive has {len(entries)} entries: only the first {MAX_ENTRIES} were looked at"
                )
            for info in entries[:MAX_ENTRIES]:
                try:
                    parts = entry_parts(info)
                    if parts is None or collector.own_file(parts):
                        continue
                    student, rel, when = collector.place(parts, info)
                except EntryRefused as exc:
                    collected.problems.append(f"{shown(info.filename, 120)}: not collected: {exc}")
                    collected.unnamed += "student id" in str(exc) or "shaped like" in str(exc)
                    continue
                key = (student, rel)
                earlier = chosen.get(key)
                if earlier is not None:  # the newest copy wins; the archive's order breaks ties
                    newer = (when or datetime.min, info.date_time) >= (times[key] or datetime.min, earlier.date_time)
                    keep, drop = (info, earlier) if newer else (earlier, info)
                    chosen[key] = keep
                    times[key] = when if newer else times[key]
                    duplicates.append(
                        (
                            student,
                            f"{shown(drop.filename, 120)}: not collected: {key[0]} has a "
                            f"newer copy of {key[1]} in the archive ({shown(keep.filename, 120)})",
                        )
                    )
                else:
                    chosen[key], times[key] = info, when
            collided = {student for student, ids in collector.names.items() if len(ids) > 1}
            collected.problems += [problem for student, problem in duplicates if student not in collided]
            for student, ids in collector.names.items():  # two people whose names make one id
                if student in collided:
                    collected.problems.append(
                        f"{len(ids)} students' names give the id {student} (LMS ids "
                        f"{', '.join(sorted(ids))}): none of them is collected; rename "
                        "their files in the archive, or collect with --name-regexp"
                    )
                    for key in [k for k in chosen if k[0] == student]:
                        del chosen[key]
            total = 0
            for (student, rel), info in sorted(chosen.items()):
                limit = MAX_CELL_CHARS if rel.endswith(".py") else MAX_ENTRY_BYTES
                try:
                    if total + info.file_size > MAX_TOTAL_BYTES:
                        raise EntryRefused(f"the archive holds more than {MAX_TOTAL_BYTES / 2**30:g} GB")
                    total += _copy_bounded(zf, info, staging / student / rel, limit)
                except EntryRefused as exc:
                    collected.problems.append(f"{shown(info.filename, 120)}: not collected: {exc}")
                    continue
                collected.students.setdefault(student, []).append(rel)
                if times[(student, rel)] is not None:
                    collected.times[student] = max(times[(student, rel)], collected.times.get(student, datetime.min))
    except (zipfile.BadZipFile, OSError) as exc:
        raise GraderError(f"{archive.name} is not a readable zip file ({exc})") from None
    collected.late = sorted(collector.late & set(collected.students))
    release = Path(course_dir) / "release" / assignment
    for student in sorted(collected.students):
        files = collected.students[student]
        if not any(f in notebooks for f in files) and (release / notebooks[0]).is_file():
            # Only .py modules: nbgrader records a notebook, so the release's (every cell an untouched
            # stub) stands in, and the modules are graded (an implemented function wins over a stub).
            shutil.copyfile(release / notebooks[0], staging / student / notebooks[0])
            collected.stand_in.append(student)
        if student in collected.times:  # as nbgrader writes it: UTC, read back by nbgrader.utils.parse_utc
            (staging / student / "timestamp.txt").write_text(
                collected.times[student].isoformat(" ") + " UTC\n", encoding="utf-8"
            )
        _replace(staging / student, Path(course_dir) / "submitted" / student / assignment)
    if len(collected.problems) > MAX_PROBLEMS:
        more = len(collected.problems) - MAX_PROBLEMS
        collected.problems[MAX_PROBLEMS:] = [f"... and {more} more entries not collected"]
    return collected


def _replace(source: Path, dest: Path) -> None:
    """Make ``source`` (a folder we wrote) the submission at ``dest``, replacing what was there."""
    if dest.parent.is_symlink():
        dest.parent.unlink()
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    elif dest.exists():
        shutil.rmtree(dest)
    for folder, _, _ in os.walk(source):
        os.chmod(folder, 0o755)
    shutil.move(str(source), str(dest))
