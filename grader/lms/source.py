"""Where a download's files come from: a zip archive or a folder, both read as hostile data.

Every name and byte in a download is a student's, so nothing is unpacked by another tool: a zip is
read with :mod:`zipfile`, entry by entry, streaming and bounded, and a folder is walked without
following a link. An entry is one of three things (:func:`Source.entries`):

- an :class:`Entry`, a regular file with its path components (``/``-separated, ``..`` and absolute
  names refused);
- a :class:`Skipped` entry passed over as furniture: folders, the operating system's metadata
  (``__MACOSX``, ``.DS_Store``, hidden files, checkpoints);
- a :class:`Skipped` entry refused, with its reason: a link, a special file, an encrypted entry,
  an absolute name or one that climbs out of its folder, anything past :data:`MAX_ENTRIES`.

Copies are bounded per file (``limit``), by compression ratio (:data:`MAX_RATIO`) and in all
(:class:`Budget`, :data:`MAX_TOTAL_BYTES`); a file is written 0644 in a folder of 0755, whatever
the archive says, never through a link.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.errors import GraderError
from grader.untrusted import UntrustedFile, kind_of, read_regular, shown

MAX_ENTRIES = 20_000  # entries of one download looked at
MAX_TOTAL_BYTES = 4 * 2**30  # bytes copied from one download
MAX_RATIO = 200  # uncompressed / compressed, for entries over 1 MiB (a notebook compresses about 5x)
JUNK = ("__MACOSX", ".ipynb_checkpoints", "__pycache__")
CHUNK = 1 << 16


class EntryRefused(Exception):
    """This entry is not collected (the reason is the message)."""


class NotAFile(EntryRefused):
    """A student's text the LMS keeps (online text, a link), written into the download as a page: left out
    by rule, the instructor reads it in the LMS."""


@dataclass(frozen=True)
class Entry:
    """One regular file of a download.

    ``stamp`` is the time the archive gives the file (a zip entry's date and time, a file's
    modification time): it orders two copies of one file, never says when anything was handed in
    (Canvas and Moodle date every entry when they make the zip).
    """

    name: str  # as the download names it, for messages
    parts: tuple[str, ...]
    size: int
    index: int  # its place in the download
    stamp: tuple = ()
    packed: int | None = None  # a zip entry's compressed size


@dataclass(frozen=True)
class Skipped:
    """An entry that is not a student's file: ``furniture`` (passed over) or refused with ``reason``."""

    name: str
    reason: str
    furniture: bool = False


class Budget:
    """The bytes one download may still write (:data:`MAX_TOTAL_BYTES` in all)."""

    def __init__(self, total: int = MAX_TOTAL_BYTES):
        self.left = total

    def take(self, size: int) -> None:
        if size > self.left:
            raise EntryRefused(f"the download holds more than {MAX_TOTAL_BYTES / 2**30:g} GB")
        self.left -= size


def clean_parts(name: str) -> list[str] | None:
    """The components of an entry's name; None to pass it over (a folder, OS metadata, a hidden file).

    Raises
    ------
    EntryRefused
        For an absolute name or one that climbs out of its folder.
    """
    name = name.replace("\\", "/")
    if name.endswith("/"):
        return None
    if "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise EntryRefused("an absolute name")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise EntryRefused("a name that climbs out of its folder (..)")
    if not parts or any(p.startswith(".") or p in JUNK for p in parts):
        return None
    return parts


def _new_file(dest: Path):
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    out = os.fdopen(os.open(dest, flags, 0o644), "wb")
    os.fchmod(out.fileno(), 0o644)  # whatever the umask and the archive say
    return out


class ZipSource:
    """The entries of a zip archive."""

    kind = "archive"

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.zip = zipfile.ZipFile(self.path)
            self.infos = self.zip.infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise GraderError(f"{self.path.name} is not a readable zip file ({shown(str(exc), 100)})") from None

    def close(self) -> None:
        self.zip.close()

    def entries(self) -> Iterator[Entry | Skipped]:
        for index, info in enumerate(self.infos[:MAX_ENTRIES]):
            try:
                parts = clean_parts(info.filename)
                if parts is None:
                    yield Skipped(info.filename, "a folder or the system's own file", furniture=True)
                    continue
                self._check(info)
            except EntryRefused as exc:
                yield Skipped(info.filename, str(exc))
                continue
            yield Entry(info.filename, tuple(parts), info.file_size, index, info.date_time, info.compress_size)
        for info in self.infos[MAX_ENTRIES:]:
            yield Skipped(info.filename, f"past the first {MAX_ENTRIES} entries of the archive, never looked at")

    @staticmethod
    def _check(info: zipfile.ZipInfo) -> None:
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0 when the archiver wrote permission bits only
        if info.create_system == 3 and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise EntryRefused("a symbolic link" if kind == stat.S_IFLNK else "not a regular file")
        if info.flag_bits & 0x1:
            raise EntryRefused("encrypted")

    def _refuse_size(self, entry: Entry, limit: int) -> None:
        if entry.size > limit:
            raise EntryRefused(f"{entry.size / 2**20:.1f} MB, more than the {limit / 2**20:g} MB a file may have")
        packed = max(entry.packed or 0, 1)
        if entry.size > 2**20 and entry.size > MAX_RATIO * packed:
            raise EntryRefused(f"compressed {entry.size // packed} to 1 (a zip bomb?)")

    def copy(self, entry: Entry, dest: Path, limit: int, budget: Budget) -> int:
        """Stream ``entry`` into the new file ``dest``, at most ``limit`` bytes; its size."""
        self._refuse_size(entry, limit)
        budget.take(entry.size)
        written = 0
        try:
            with _new_file(dest) as out, self.zip.open(self.infos[entry.index]) as source:
                while chunk := source.read(CHUNK):
                    written += len(chunk)
                    if written > limit:  # the header lied about the size
                        raise EntryRefused(f"more than the {limit / 2**20:g} MB a file may have")
                    out.write(chunk)
        except (EntryRefused, zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            dest.unlink(missing_ok=True)
            raise exc if isinstance(exc, EntryRefused) else EntryRefused(f"unreadable ({shown(str(exc), 100)})")
        return written

    def read(self, entry: Entry, limit: int) -> bytes:
        """The bytes of ``entry`` (at most ``limit``: an LMS's small files, such as receipts)."""
        self._refuse_size(entry, limit)
        try:
            with self.zip.open(self.infos[entry.index]) as source:
                data = source.read(limit + 1)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise EntryRefused(f"unreadable ({shown(str(exc), 100)})") from None
        if len(data) > limit:
            raise EntryRefused(f"more than the {limit / 2**20:g} MB a file may have")
        return data


class FolderSource:
    """The files under a folder (an unpacked download, or a class folder), never through a link."""

    kind = "folder"

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise GraderError(f"not a folder of submissions: {self.path}")

    def close(self) -> None:
        pass

    def entries(self) -> Iterator[Entry | Skipped]:
        index = 0
        for parent, dirs, files in os.walk(self.path):  # os.walk never enters a linked folder
            rel = Path(parent).relative_to(self.path)
            dirs.sort()
            for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(parent, d))]:
                shown_name = (rel / name).as_posix()
                if index >= MAX_ENTRIES:
                    yield Skipped(shown_name, f"past the first {MAX_ENTRIES} files of the folder, never looked at")
                    continue
                index += 1
                yield self._entry(Path(parent) / name, shown_name, index)
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in JUNK]

    def _entry(self, path: Path, name: str, index: int) -> Entry | Skipped:
        parts = name.split("/")
        if any(p.startswith(".") or p in JUNK for p in parts):
            return Skipped(name, "the system's own file", furniture=True)
        try:
            info = os.lstat(path)
        except OSError as exc:
            return Skipped(name, f"unreadable ({exc.strerror})")
        if not stat.S_ISREG(info.st_mode):
            return Skipped(name, f"{kind_of(info.st_mode)}; links are never followed (hand in the file itself)")
        return Entry(name, tuple(parts), info.st_size, index, (info.st_mtime,))

    def copy(self, entry: Entry, dest: Path, limit: int, budget: Budget) -> int:
        data = self.read(entry, limit)
        budget.take(len(data))
        with _new_file(dest) as out:
            out.write(data)
        return len(data)

    def read(self, entry: Entry, limit: int) -> bytes:
        try:
            return read_regular(self.path.joinpath(*entry.name.split("/")), limit)  # the name as walked
        except UntrustedFile as exc:
            raise EntryRefused(str(exc)) from None
        except OSError as exc:
            raise EntryRefused(f"unreadable ({exc.strerror})") from None


def open_source(path: Path) -> ZipSource | FolderSource:
    """The download at ``path``: a ``.zip`` file or a folder.

    Raises
    ------
    GraderError
        When ``path`` is neither, or the archive cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        return FolderSource(path)
    if not path.is_file():
        raise GraderError(f"download not found: {path}")
    if path.suffix.lower() != ".zip":
        raise GraderError(f"{path.name}: a download is a .zip file or a folder")
    return ZipSource(path)
