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
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.autograde.extract import MAX_CELL_CHARS, MAX_NOTEBOOK_BYTES
from grader.engine.store import SAFE_ID
from grader.errors import GraderError
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


@dataclass
class Collected:
    """What :func:`collect_zip` did: files written per student, and a message per entry left out."""

    students: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

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

    def __init__(self, archive_stem: str, notebooks: list[str], modules: list[str], name_regexp: str | None):
        self.archive_stem = archive_stem
        self.notebooks = list(notebooks)
        self.modules = {PurePosixPath(m).name: m for m in modules}
        try:
            self.pattern = re.compile(name_regexp or DEFAULT_PATTERN)
        except re.error as exc:
            raise GraderError(f"--name-regexp is not a regular expression: {exc}") from None
        if "student_id" not in self.pattern.groupindex:
            raise GraderError("--name-regexp needs a (?P<student_id>...) group")

    def place(self, parts: list[str]) -> tuple[str, str]:
        if len(parts) > 1 and parts[0] == self.archive_stem:
            parts = parts[1:]
        if len(parts) > 2:
            raise EntryRefused("in a sub-folder of a student's folder (only <student>/<file> is collected)")
        name = parts[-1]
        suffix = PurePosixPath(name).suffix.lower()
        if suffix in ARCHIVES:
            raise EntryRefused("an archive inside the archive (nested archives are never unpacked: "
                               "ask for the notebook itself)")
        if len(parts) == 2:
            student, file_id = parts
        else:
            stem = PurePosixPath(name).stem
            match = self.pattern.match(stem)
            if not match or not match.group("student_id"):
                raise EntryRefused("its name gives no student id")
            student = match.group("student_id")
            file_id = (match.groupdict().get("file_id") or stem) + suffix
        if not SAFE_ID.match(student):
            raise EntryRefused(f"{shown(student, 40)!r} is not a usable student id (letters, digits and "
                               ". _ @ + - only, at most 100)")
        if suffix == ".ipynb":
            if file_id in self.notebooks:
                return student, file_id
            if len(self.notebooks) == 1:
                return student, self.notebooks[0]
            raise EntryRefused(f"not one of the assignment's notebooks ({', '.join(self.notebooks)})")
        if suffix == ".py" and PurePosixPath(file_id).name in self.modules:
            return student, self.modules[PurePosixPath(file_id).name]
        raise EntryRefused("not a notebook or module of the assignment")


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


def collect_zip(course_dir: Path, assignment: str, archive: Path, notebooks: list[str], modules: list[str] = (),
                name_regexp: str | None = None) -> Collected:
    """Collect ``archive`` into ``<course_dir>/submitted/<student>/<assignment>/``.

    ``notebooks`` are the assignment's notebook names, ``modules`` its student modules
    (both as ``grader build`` recorded them). The files are first written to
    ``downloaded/<assignment>/extracted/`` (emptied), then each collected student's
    folder replaces their submission.

    Raises
    ------
    GraderError
        When ``archive`` is not a readable zip file or ``name_regexp`` is unusable;
        anything wrong with one entry is a message in :attr:`Collected.problems` instead.
    """
    archive = Path(archive)
    if not archive.is_file():
        raise GraderError(f"LMS download not found: {archive}")
    if archive.suffix.lower() != ".zip":
        raise GraderError(f"{archive.name}: an LMS download is a .zip file")
    collector = Collector(archive.stem, notebooks, modules, name_regexp)
    staging = Path(course_dir) / "downloaded" / assignment / "extracted"
    if staging.is_symlink():
        staging.unlink()
    elif staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True, mode=0o755)
    collected = Collected()
    chosen: dict[tuple[str, str], zipfile.ZipInfo] = {}
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = zf.infolist()
            if len(entries) > MAX_ENTRIES:
                collected.problems.append(f"the archive has {len(entries)} entries: only the first {MAX_ENTRIES} "
                                          "were looked at")
            for info in entries[:MAX_ENTRIES]:
                try:
                    parts = entry_parts(info)
                    if parts is None:
                        continue
                    key = collector.place(parts)
                except EntryRefused as exc:
                    collected.problems.append(f"{shown(info.filename, 120)}: not collected: {exc}")
                    continue
                earlier = chosen.get(key)
                if earlier is not None:  # the newest copy wins; the archive's order breaks ties
                    keep, drop = (info, earlier) if info.date_time >= earlier.date_time else (earlier, info)
                    chosen[key] = keep
                    collected.problems.append(f"{shown(drop.filename, 120)}: not collected: {key[0]} has a newer "
                                              f"copy of {key[1]} in the archive ({shown(keep.filename, 120)})")
                else:
                    chosen[key] = info
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
    except (zipfile.BadZipFile, OSError) as exc:
        raise GraderError(f"{archive.name} is not a readable zip file ({exc})") from None
    for student in sorted(collected.students):
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
